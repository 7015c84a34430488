/**
 * Each tax file read row by row by its Type as the tool's documentation defines it, not only
 * by its sums: CoinTracking and BittyTax (a Deposit, Income or Airdrop has a buy side only; a
 * Withdrawal, Spend or Other Fee a sell side only; a Trade both), Koinly (no type column: the
 * sides say what a row is; income and airdrop labels receive, cost sends). Every amount is a
 * plain positive number, and a fee amount comes with its currency.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { LedgerEvents, TaxFiles } from "../../src/index.js"
import { generate } from "../support/keyAccounts.js"
import { columnsOf, has, parse, sidesOf } from "../support/taxRows.js"

const eventsOf = (seed: number) => Effect.runSync(LedgerEvents.fromEntries(generate(seed, 400).entries))

describe("each tax file row read by its Type", () => {
  // Mutations in TaxFiles.ts: a Deposit's `received` and `sent` swapped, a Withdrawal's, a
  // Trade's sent dropped; each leaves the sums of some check intact and breaks a row's type.
  for (const format of ["cointracking", "bittytax"] as const) {
    it(`${format}: every Type holds the sides its docs give it`, () => {
      const seen = new Set<string>()
      for (const seed of [5, 7, 11]) {
        parse([...TaxFiles.lines(format, eventsOf(seed))].join("")).forEach((row, i) => {
          const type = row.Type ?? ""
          const where = `${format} seed ${seed} row ${i + 1} (${type}, ${row.Comment ?? row.Note})`
          const expected = sidesOf[format][type]
          expect(expected, `${where}: a Type the tool does not define`).toBeDefined()
          const buy = has(row, columnsOf[format].buy, where)
          const sell = has(row, columnsOf[format].sell, where)
          has(row, columnsOf[format].fee, where)
          expect(buy ? (sell ? "both" : "buy") : sell ? "sell" : "none", where).toBe(expected)
          seen.add(type)
        })
      }
      for (const type of ["Trade", "Deposit", "Withdrawal"]) expect(seen).toContain(type)
    })
  }

  it("koinly: a row sends, receives or both; income and airdrops receive, costs send", () => {
    const seen = new Set<string>()
    for (const seed of [5, 7, 11]) {
      parse([...TaxFiles.lines("koinly", eventsOf(seed))].join("")).forEach((row, i) => {
        const label = row.Label ?? ""
        const where = `koinly seed ${seed} row ${i + 1} (${label}, ${row.Description})`
        const received = has(row, columnsOf.koinly.buy, where)
        const sent = has(row, columnsOf.koinly.sell, where)
        has(row, columnsOf.koinly.fee, where)
        expect(received || sent, where).toBe(true)
        if (label === "income" || label === "airdrop") expect([received, sent], where).toEqual([true, false])
        if (label === "cost") expect([received, sent], where).toEqual([false, true])
        seen.add(received && sent ? "trade" : received ? "in" : "out")
      })
    }
    expect([...seen].sort()).toEqual(["in", "out", "trade"])
  })
})
