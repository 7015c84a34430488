/**
 * Names the three plain-text accounting tools accept: commodity symbols and account names.
 * The grammar of each tool is in `docs/internals/journals.md`, with where it comes from.
 */
/**
 * The tool a journal is written for.
 */
export type Tool = "hledger" | "ledger" | "beancount"

/**
 * How one coin is written in one tool's journal.
 */
export interface Commodity {
  /** The symbol itself, as declared (`1INCH` for hledger; `X1INCH` for Beancount). */
  readonly symbol: string
  /** The symbol as it stands beside an amount (`"1INCH"`: hledger and Ledger quote what is not all letters). */
  readonly text: string
  /** The account name part for this coin (`1INCH`; Beancount: `X1INCH`). */
  readonly component: string
}

const beancountMax = 24

/** A coin with no name (the wire allows `""`) still needs a symbol: the same one in every tool. */
const nameless = "COIN"

/** Any character a quoted hledger/Ledger symbol or account component could trip on. */
const plainSymbol = (coin: string): string => (coin === "" ? nameless : coin.replace(/[^A-Za-z0-9._-]/g, "_"))

/** Beancount: `[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]` (beancount 2 lexer), so at least two characters. */
const beancountSymbol = (coin: string): string => {
  let symbol = (coin === "" ? nameless : coin).toUpperCase().replace(/[^A-Z0-9'._-]/g, "-")
  if (!/^[A-Z]/.test(symbol) || symbol.length < 2) symbol = `X${symbol}`
  symbol = symbol.slice(0, beancountMax)
  if (!/[A-Z0-9]$/.test(symbol)) symbol = `${symbol.slice(0, beancountMax - 1)}X`
  return symbol
}

/** A second coin on the same symbol (or Beancount account part) gets `-2`, `-3`, ... within the tool's length. */
const withSuffix = (tool: Tool, base: string, n: number): string =>
  tool === "beancount" ? `${base.slice(0, beancountMax - String(n).length - 1)}-${n}` : `${base}-${n}`

/**
 * The symbols of the coins of one journal. Coins are taken in sorted order, so the same coins
 * get the same symbols on every run; two coins that would share a symbol (`btc` and `BTC` in
 * Beancount) are told apart by a suffix.
 */
export const commodities = (tool: Tool, coins: Iterable<string>): ReadonlyMap<string, Commodity> => {
  // The account parts taken; the part is a function of the symbol, so a free part means a free symbol.
  const taken = new Set<string>()
  const result = new Map<string, Commodity>()
  // Beancount account components take letters, digits and dashes only: `A-B` and `A_B` are two
  // symbols but would share one account, so a component must be free as well as the symbol.
  const componentOf = (symbol: string) => (tool === "beancount" ? symbol.replace(/['._]/g, "-") : symbol)
  for (const coin of [...new Set(coins)].sort()) {
    const base = tool === "beancount" ? beancountSymbol(coin) : plainSymbol(coin)
    let symbol = base
    for (let n = 2; taken.has(componentOf(symbol)); n++) {
      symbol = withSuffix(tool, base, n)
    }
    const component = componentOf(symbol)
    taken.add(component)
    const text = tool === "beancount" || /^[A-Za-z]+$/.test(symbol) ? symbol : `"${symbol}"`
    result.set(coin, { symbol, text, component })
  }
  return result
}

/**
 * The accounts a journal books against, other than the exchange accounts' own.
 */
export const namedAccounts = ["fees", "income", "losses", "external", "opening", "suspense"] as const

/**
 * One of {@link namedAccounts}.
 */
export type NamedAccount = (typeof namedAccounts)[number]

/**
 * Why `name` cannot be an account name in `tool`, or undefined when it can.
 */
export const accountNameProblem = (tool: Tool, name: string): string | undefined => {
  if (tool === "beancount") {
    return /^(Assets|Liabilities|Equity|Income|Expenses)(:[A-Z0-9][A-Za-z0-9-]*)+$/.test(name)
      ? undefined
      : "Beancount wants Assets, Liabilities, Equity, Income or Expenses, then ':'-separated parts that start with a capital letter or digit and hold only letters, digits and '-'"
  }
  if (name.trim() !== name || name === "") return "an account name must not be empty or start or end with a space"
  if (/[\t\r\n;]|\s\s/.test(name)) return "an account name must not hold a tab, a newline, ';' or two spaces in a row"
  if (name.split(":").some((part) => part === "")) return "an account name must not hold an empty ':' part"
  return undefined
}
