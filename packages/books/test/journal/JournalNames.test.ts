/**
 * Two hard cases of the journal, proved by the tools themselves: coins whose names collide in a
 * tool's commodity rules keep apart (each its own symbol, account and balance), and a chain whose
 * order differs from the bill ids' in its first millisecond opens at the balance the chain starts
 * from, not at the one before the lowest id.
 */
import { describe, expect } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { Journal, type Ledger, LedgerEvents } from "../../src/index.js"
import { checkJournal, itWith, journalFile, type Tool, tools } from "../support/journalTools.js"
import { entriesAt } from "../support/ledgerEntries.js"

const t0 = Date.UTC(2025, 7, 1, 10)
const { funding } = entriesAt(t0)
const rules = { feeRules: { funding: "delta-includes-fees" } } as const

const journalOf = (tool: Tool, entries: ReadonlyArray<Ledger.LedgerEntry>) =>
  Effect.runSync(Effect.flatMap(LedgerEvents.fromEntries(entries, rules), (events) => Journal.write(tool, events)))

const run = (tool: Tool, entries: ReadonlyArray<Ledger.LedgerEntry>) => {
  const journal = journalOf(tool, entries)
  const result = checkJournal(tool, journalFile(journal.text, `names.${tool}`))
  expect(result.ok, `${result.output}\n${journal.text}`).toBe(true)
  return result.balances
}

const long = "AVERYLONGCOINNAMEBEYONDTWENTYFOUR"
/** Coin -> the amount deposited: every pair here collides in at least one tool. */
const deposits: ReadonlyArray<readonly [string, string]> = [
  ["BTC", "1"],
  ["btc", "2"],
  ["A/B", "3"],
  ["A_B", "4"],
  [`${long}1`, "5"],
  [`${long}2`, "6"],
  // A name the tools would take nothing of, and one ending on a character Beancount's last may not be.
  ["", "7"],
  ["ETH.", "8"]
]
/** The symbol each tool must give each coin, written out (the coins are taken in sorted order). */
const expected: Readonly<Record<Tool, ReadonlyArray<string>>> = {
  hledger: ["BTC", "btc", "A_B", "A_B-2", `${long}1`, `${long}2`, "COIN", "ETH."],
  ledger: ["BTC", "btc", "A_B", "A_B-2", `${long}1`, `${long}2`, "COIN", "ETH."],
  // Beancount: upper case only, at most 24 characters, a suffix within the 24.
  // `A_B` is free as a symbol, but its account part would be `A-B`'s: it takes a suffix.
  beancount: ["BTC", "BTC-2", "A-B", "A_B-2", "AVERYLONGCOINNAMEBEYONDT", "AVERYLONGCOINNAMEBEYON-2", "COIN", "ETH.X"]
}
/** The account component of a symbol: Beancount's take letters, digits and '-' only. */
const component = (tool: Tool, symbol: string) => (tool === "beancount" ? symbol.replace(/['._]/g, "-") : symbol)

describe("coins whose names collide in a tool's commodity rules", () => {
  // Mutations in internal/journalNames.ts: `taken.add(symbol)` dropped (two coins on one symbol);
  // Beancount's suffix without its `- 1` (25 characters, which bean-check refuses); the nameless
  // coin's `COIN` emptied; Beancount's last character unchecked (`$` dropped); its symbols quoted
  // beside an amount as hledger's are (`tool === "beancount"` in `text` made false).
  for (const tool of tools) {
    itWith(tool)(`${tool}: each coin its own symbol, account and balance`, () => {
      const entries = deposits.map(([coin, amount], i) =>
        funding({ coinName: coin, bizType: "deposit", deltaAmount: amount, afterAmount: amount, cTime: String(t0 + i) })
      )
      const balances = run(tool, entries)
      deposits.forEach(([coin, amount], i) => {
        const symbol = expected[tool][i] as string
        const key = `${Journal.defaultAccountNames.funding}:${component(tool, symbol)}\u0000${symbol}`
        const balance = balances.get(key)
        expect(balance && BigDecimal.format(balance), `${coin} as ${key}`).toBe(amount)
      })
      const assets = [...balances.keys()].filter((key) => key.startsWith(Journal.defaultAccountNames.funding))
      expect(assets).toHaveLength(deposits.length)
    })
  }
})

describe("a chain whose order differs from the bill ids' in its first millisecond", () => {
  // In one millisecond: the lower id takes 110 to 105, the higher 100 to 110. The chain runs
  // 100 -> 110 -> 105; in id order it would jump. Then 105 -> 106.
  const entries = () => [
    funding({ billId: "500", coinName: "USDT", bizType: "withdraw", deltaAmount: "-5", afterAmount: "105" }),
    funding({ billId: "501", coinName: "USDT", bizType: "deposit", deltaAmount: "10", afterAmount: "110" }),
    funding({
      billId: "502",
      coinName: "USDT",
      bizType: "deposit",
      deltaAmount: "1",
      afterAmount: "106",
      cTime: String(t0 + 1)
    })
  ]

  // Mutation in internal/journalPlan.ts: the first millisecond laid out in id order
  // (`orderGroup(at, group)` -> `group`): the journal opens at 110 and an assertion fails.
  for (const tool of tools) {
    itWith(tool)(`${tool}: opens at 100, the chain's start, and every assertion holds`, () => {
      const balances = run(tool, entries())
      const usdt = (account: string) => balances.get(`${account}\u0000USDT`)
      expect(BigDecimal.format(usdt(`${Journal.defaultAccountNames.funding}:USDT`) ?? BigDecimal.make(0n, 0))).toBe(
        "106"
      )
      expect(BigDecimal.format(usdt(Journal.defaultAccountNames.opening) ?? BigDecimal.make(0n, 0))).toBe("-100")
    })
  }
})
