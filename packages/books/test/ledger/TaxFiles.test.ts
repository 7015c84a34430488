import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type Ledger, LedgerEvents, TaxFiles } from "../../src/index.js"
import { entriesAt } from "../support/ledgerEntries.js"

const t0 = Date.UTC(2025, 2, 4, 5, 6, 7, 89)

const { funding, spot } = entriesAt(t0)

const rules = { feeRules: { spot: "delta-includes-fees", funding: "delta-includes-fees" } } as const
const rowsOf = (format: TaxFiles.TaxFormat, entries: ReadonlyArray<Ledger.LedgerEntry>) => {
  const events = Effect.runSync(LedgerEvents.fromEntries(entries, rules))
  const [header, ...rows] = [...TaxFiles.lines(format, events)].map((line) => line.replace(/\n$/, "").split(","))
  return rows.map((cells) => Object.fromEntries((header ?? []).map((name, i) => [name, cells[i] ?? ""])))
}

// ccxt's live trade_out (DOGE -250, fill 250 / 23.3725, fees 0) and its trade_in, fee in USDT.
const feeOnReceived = () => [
  spot({ coinName: "DOGE", bizType: "trade_out", deltaAmount: "-250.0", fillSize: "250.0", fillValue: "23.3725" }),
  spot({
    coinName: "USDT",
    bizType: "trade_in",
    deltaAmount: "23.3491275",
    fees: "0.0233725",
    fillSize: "250.0",
    fillValue: "23.3725"
  })
]
// A fee taken from the coin given: the out leg's delta holds it (after = before + delta).
const feeOnSent = () => [
  spot({
    coinName: "USDT",
    bizType: "trade_out",
    deltaAmount: "-100.1",
    fees: "0.1",
    fillSize: "0.002",
    fillValue: "100"
  }),
  spot({ coinName: "BTC", bizType: "trade_in", deltaAmount: "0.002", fillSize: "0.002", fillValue: "100" })
]

describe("TaxFiles: layouts and fee conventions", () => {
  it("Koinly: sent without the fee, received gross, the fee besides; a deposit has no fee; Koinly Date", () => {
    expect(rowsOf("koinly", feeOnReceived())[0]).toMatchObject({
      Date: "2025-03-04 05:06 UTC",
      "Sent Amount": "250",
      "Sent Currency": "DOGE",
      "Received Amount": "23.3725",
      "Received Currency": "USDT",
      "Fee Amount": "0.0233725",
      "Fee Currency": "USDT"
    })
    expect(rowsOf("koinly", feeOnSent())[0]).toMatchObject({
      "Sent Amount": "100",
      "Fee Amount": "0.1",
      "Received Amount": "0.002"
    })
    const [deposit] = rowsOf("koinly", [
      funding({ coinName: "BTC", bizType: "deposit", deltaAmount: "0.999", fees: "0.001" })
    ])
    expect(deposit).toMatchObject({ "Received Amount": "0.999", "Fee Amount": "", Label: "" })
    expect(deposit?.Description).toMatch(/^WEEX funding deposit; bills funding:\d+$/)
  })

  it("CoinTracking: the amounts include the fee (they are the balance changes); the fee only tells", () => {
    expect(rowsOf("cointracking", feeOnReceived())[0]).toMatchObject({
      Type: "Trade",
      "Buy Amount": "23.3491275",
      "Buy Currency": "USDT",
      "Sell Amount": "250",
      "Sell Currency": "DOGE",
      Fee: "0.0233725",
      "Fee Currency": "USDT",
      Exchange: "WEEX",
      "Trade-Group": "spot",
      Date: "2025-03-04 05:06:07"
    })
    expect(rowsOf("cointracking", feeOnSent())[0]).toMatchObject({
      "Sell Amount": "100.1",
      "Buy Amount": "0.002",
      Fee: "0.1"
    })
    expect(
      rowsOf("cointracking", [funding({ coinName: "BTC", bizType: "withdraw", deltaAmount: "-0.5", fees: "0.001" })])[0]
    ).toMatchObject({ Type: "Withdrawal", "Sell Amount": "0.5", Fee: "0.001" })
  })

  it("BittyTax: sell net of a fee in the sell asset, buy gross of a fee in the buy asset; deposit gross, withdrawal net", () => {
    expect(rowsOf("bittytax", feeOnReceived())[0]).toMatchObject({
      Type: "Trade",
      "Buy Quantity": "23.3725",
      "Sell Quantity": "250",
      "Fee Quantity": "0.0233725",
      "Fee Asset": "USDT",
      Wallet: "WEEX",
      Timestamp: "2025-03-04T05:06:07.089 UTC"
    })
    expect(rowsOf("bittytax", feeOnSent())[0]).toMatchObject({ "Sell Quantity": "100", "Fee Quantity": "0.1" })
    expect(
      rowsOf("bittytax", [funding({ coinName: "BTC", bizType: "deposit", deltaAmount: "0.999", fees: "0.001" })])[0]
    ).toMatchObject({ Type: "Deposit", "Buy Quantity": "1", "Fee Quantity": "0.001" })
    expect(
      rowsOf("bittytax", [funding({ coinName: "BTC", bizType: "withdraw", deltaAmount: "-0.5", fees: "0.001" })])[0]
    ).toMatchObject({ Type: "Withdrawal", "Sell Quantity": "0.499", "Fee Quantity": "0.001" })
  })

  it("writes no row for an internal transfer, and flags unpaired legs and unknown types single-sided", () => {
    const entries = [
      funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-5" }),
      spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "5" }),
      spot({ coinName: "ETH", bizType: "trade_out", deltaAmount: "-1", fillSize: "1", fillValue: "3000" }),
      funding({ coinName: "WXT", bizType: "system_issued", deltaAmount: "3" })
    ]
    for (const format of TaxFiles.taxFormats) {
      const rows = rowsOf(format, entries)
      expect(rows).toHaveLength(2)
      const notes = rows.map((row) => row.Description ?? row.Comment ?? row.Note)
      expect(notes[0]).toMatch(/^WEEX UNKNOWN TYPE system_issued; bills funding:\d+$/)
      expect(notes[1]).toMatch(/^WEEX UNPAIRED trade_out \(no-counterpart\); bills spot:\d+$/)
    }
    const summary = TaxFiles.summarize(Effect.runSync(LedgerEvents.fromEntries(entries, rules)))
    expect(summary.flagged.map((flagged) => flagged.flag)).toEqual(["UNKNOWN TYPE", "UNPAIRED"])
    expect(summary.coins.find((coin) => coin.coin === "USDT")?.events.InternalTransfer).toBe(1)
  })

  it("quotes a field that holds a comma", () => {
    const events = Effect.runSync(
      LedgerEvents.fromEntries([funding({ coinName: "A,B", bizType: "deposit", deltaAmount: "1" })], rules)
    )
    expect([...TaxFiles.lines("koinly", events)][1]).toContain('"A,B"')
  })
})
