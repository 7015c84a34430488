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

/** RFC 4180 rows: quoted fields may hold commas and doubled quotes. */
const parse = (text: string): Array<Record<string, string>> => {
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

type Sides = "buy" | "sell" | "both"
/** What each Type may hold, from the tools' own import docs. */
const sidesOf: Readonly<Record<"cointracking" | "bittytax", Readonly<Record<string, Sides>>>> = {
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
const columnsOf = {
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
const has = (row: Record<string, string>, [amount, currency]: readonly [string, string], where: string): boolean => {
  const a = row[amount] ?? ""
  const c = row[currency] ?? ""
  expect(a === "", `${where}: ${amount} "${a}" beside ${currency} "${c}"`).toBe(c === "")
  if (a !== "") expect(a, `${where}: ${amount}`).toMatch(positive)
  return a !== ""
}

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
