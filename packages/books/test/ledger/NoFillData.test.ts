/**
 * Trades with no fill data to pair by: the funding account's `buy`, `sell`, `c2c_buy` and
 * `c2c_sell`, and a `trade_in` or `trade_out` booked in the funding account (whose bills carry no
 * fill). Each is one unpaired bill, "no-fill-data", never a leg waiting for a counterpart.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { LedgerEvents } from "../../src/index.js"
import { entriesAt } from "../support/ledgerEntries.js"

const { funding } = entriesAt(Date.UTC(2025, 8, 1))

describe("trades without fill data", () => {
  // Mutations in internal/ledgerEvents.ts: `fundingTradeTypes.has(bizType) || kind === "trade"`
  // as `&&` or either half `false`; trade legs taken from any account (`account === "spot"` ->
  // `true`: the funding trade_in waits for a counterpart, "no-counterpart").
  it("each is unpaired for having no fill data", () => {
    const entries = [
      ...["buy", "sell", "c2c_buy", "c2c_sell"].map((bizType) =>
        funding({ coinName: "BTC", bizType, deltaAmount: bizType.endsWith("buy") ? "1" : "-1" })
      ),
      funding({ coinName: "USDT", bizType: "trade_in", deltaAmount: "5" }),
      funding({ coinName: "BTC", bizType: "trade_out", deltaAmount: "-1" })
    ]
    const events = Effect.runSync(LedgerEvents.fromEntries(entries, { feeRules: { funding: "delta-includes-fees" } }))
    expect(events.events.map((event) => [event._tag, event._tag === "Unpaired" ? event.reason : ""])).toEqual(
      entries.map(() => ["Unpaired", "no-fill-data"])
    )
  })
})
