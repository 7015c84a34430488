/**
 * Trades with no fill data to pair by: the funding account's `buy`, `sell`, `c2c_buy` and
 * `c2c_sell`, and a `trade_in` or `trade_out` booked in the funding account (whose bills carry no
 * fill). Each is one unpaired bill, "no-fill-data", never a leg waiting for a counterpart. And
 * spot trade legs whose fill is missing (either half absent) or zero: nothing ties them to another
 * leg, so each is unpaired, "no-counterpart".
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SpotWireBill } from "@account-bills/core/testing"
import { LedgerEvents } from "../../src/index.js"
import { entriesAt } from "../support/ledgerEntries.js"

type Nullable<T> = { readonly [K in keyof T]: T[K] | null }

const { funding, spot } = entriesAt(Date.UTC(2025, 8, 1))

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

  // Mutations: fillOf's `fillSize._tag === "None" || fillValue._tag === "None"` as `&&` or either
  // half `false` (a missing half read as a number: the classification dies).
  it("spot trade legs with a fill missing or zero are unpaired, no-counterpart", () => {
    // The wire may carry null for either half (the bill's schema reads it as none); the kit's
    // wire type, written for the generator's bills, says string.
    const legs: ReadonlyArray<Nullable<Pick<SpotWireBill, "fillSize" | "fillValue">>> = [
      { fillSize: null, fillValue: null },
      { fillSize: null, fillValue: "100" },
      { fillSize: "1", fillValue: null },
      { fillSize: "0", fillValue: "100" },
      { fillSize: "1", fillValue: "0" }
    ]
    const entries = legs.flatMap((fill) => [
      spot({ coinName: "BTC", bizType: "trade_out", deltaAmount: "-1", ...(fill as Pick<SpotWireBill, "fillSize">) }),
      spot({ coinName: "USDT", bizType: "trade_in", deltaAmount: "100", ...(fill as Pick<SpotWireBill, "fillSize">) })
    ])
    const events = Effect.runSync(LedgerEvents.fromEntries(entries, { feeRules: { spot: "delta-includes-fees" } }))
    expect(events.events.map((event) => [event._tag, event._tag === "Unpaired" ? event.reason : ""])).toEqual(
      entries.map(() => ["Unpaired", "no-counterpart"])
    )
  })
})
