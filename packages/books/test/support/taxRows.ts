/**
 * Tax file rows read as each tool's import documentation defines them: RFC 4180 parsing, the
 * sides each Type may hold (CoinTracking, BittyTax), the columns of each side, and the balance
 * change a row stands for under the tool's own fee convention.
 */
import * as BigDecimal from "effect/BigDecimal"
import { expect } from "vitest"
import type { TaxFiles } from "../../src/index.js"

/** RFC 4180 rows: quoted fields may hold commas and doubled quotes. */
export const parse = (text: string): Array<Record<string, string>> => {
  const rows: Array<Array<string>> = []
  for (const line of text.split("\n").filter((l) => l !== "")) {
    const cells: Array<string> = []
    let cell = ""
    let quoted = false
    for (let i = 0; i < line.length; i++) {
      const c = line[i] as string
      if (quoted && c === '"' && line[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = !quoted
      else if (c === "," && !quoted) {
        cells.push(cell)
        cell = ""
      } else cell += c
    }
    cells.push(cell)
    rows.push(cells)
  }
  const [header, ...body] = rows
  return body.map((cells) => Object.fromEntries((header ?? []).map((name, i) => [name, cells[i] ?? ""])))
}

export type Sides = "buy" | "sell" | "both"

/** What each Type may hold, from the tools' own import docs. */
export const sidesOf: Readonly<Record<"cointracking" | "bittytax", Readonly<Record<string, Sides>>>> = {
  cointracking: {
    Trade: "both",
    Deposit: "buy",
    Income: "buy",
    Airdrop: "buy",
    "Derivatives / Futures Profit": "buy",
    Withdrawal: "sell",
    "Other Fee": "sell",
    "Derivatives / Futures Loss": "sell"
  },
  bittytax: { Trade: "both", Deposit: "buy", Income: "buy", Airdrop: "buy", Withdrawal: "sell", Spend: "sell" }
}

export const columnsOf = {
  cointracking: {
    buy: ["Buy Amount", "Buy Currency"],
    sell: ["Sell Amount", "Sell Currency"],
    fee: ["Fee", "Fee Currency"]
  },
  bittytax: {
    buy: ["Buy Quantity", "Buy Asset"],
    sell: ["Sell Quantity", "Sell Asset"],
    fee: ["Fee Quantity", "Fee Asset"]
  },
  koinly: {
    buy: ["Received Amount", "Received Currency"],
    sell: ["Sent Amount", "Sent Currency"],
    fee: ["Fee Amount", "Fee Currency"]
  }
} as const

const positive = /^(0|[1-9]\d*)(\.\d*[1-9])?$/

/** A side is there when both its cells are, absent when neither is; never half. */
export const has = (
  row: Record<string, string>,
  [amount, currency]: readonly [string, string],
  where: string
): boolean => {
  const a = row[amount] ?? ""
  const c = row[currency] ?? ""
  expect(a === "", `${where}: ${amount} "${a}" beside ${currency} "${c}"`).toBe(c === "")
  if (a !== "") expect(a, `${where}: ${amount}`).toMatch(positive)
  return a !== ""
}

/** The note or comment column, which names the row's bills. */
export const noteOf = (format: TaxFiles.TaxFormat, row: Record<string, string>): string =>
  (format === "koinly" ? row.Description : format === "cointracking" ? row.Comment : row.Note) ?? ""

const decimal = (text: string) => BigDecimal.unsafeFromString(text)

/**
 * The change a row makes to each coin's balance as the tool reads it. CoinTracking: the buy and
 * sell amounts are the changes, the fee column only tells (its docs: "the fee is already
 * included"). Koinly and BittyTax: the fee is taken besides, from the balance of its coin (a
 * fee in the sent coin on top of what is sent, one in the received coin out of what came in).
 */
export const effectOf = (
  format: TaxFiles.TaxFormat,
  row: Record<string, string>
): Map<string, BigDecimal.BigDecimal> => {
  const columns = columnsOf[format]
  const effect = new Map<string, BigDecimal.BigDecimal>()
  const add = (coin: string | undefined, amount: BigDecimal.BigDecimal) => {
    if (coin === undefined || coin === "") return
    effect.set(coin, BigDecimal.normalize(BigDecimal.sum(effect.get(coin) ?? BigDecimal.make(0n, 0), amount)))
  }
  const cell = (name: string) => row[name] ?? ""
  if (cell(columns.buy[0]) !== "") add(cell(columns.buy[1]), decimal(cell(columns.buy[0])))
  if (cell(columns.sell[0]) !== "") add(cell(columns.sell[1]), BigDecimal.negate(decimal(cell(columns.sell[0]))))
  if (format !== "cointracking" && cell(columns.fee[0]) !== "") {
    add(cell(columns.fee[1]), BigDecimal.negate(decimal(cell(columns.fee[0]))))
  }
  return effect
}
