/**
 * Seeded accounts of one key for the journal tests, from the testing kit's linked generator
 * (trades with both legs, transfers whose legs lie up to 1.5 s apart with other bills between,
 * ties in one millisecond, dropped legs, rewards, unknown business types) over several days, in
 * coins whose names each tool needs rewritten: `1INCH`, `btc-perp`, a long one.
 */
import type * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { Ledger } from "../../src/index.js"
import { BillGenerator } from "@account-bills/core/testing"

export interface KeyAccounts {
  readonly entries: ReadonlyArray<Ledger.LedgerEntry>
  /** `account\u0000coin` -> the last balance the exchange reported. */
  readonly finalBalances: ReadonlyMap<string, BigDecimal.BigDecimal>
}

export const coins: ReadonlyArray<BillGenerator.CoinSpec> = [
  { coinId: 1, coinName: "USDT", decimals: 6 },
  { coinId: 2, coinName: "BTC", decimals: 8 },
  { coinId: 3, coinName: "1INCH", decimals: 4 },
  { coinId: 4, coinName: "btc-perp", decimals: 3 },
  { coinId: 5, coinName: "AVERYLONGCOINNAMEBEYONDTWENTYFOUR", decimals: 2 }
]

const start = Date.UTC(2025, 2, 1)

/** `count` bills over `days` days. */
export const generate = (seed: number, count: number, days = 5): KeyAccounts => {
  const linked = BillGenerator.make({ seed, coins }).generateLinked({
    count,
    startMillis: start,
    endMillis: start + days * 86_400_000,
    tieEvery: 6,
    dropLegEvery: 40
  })
  const entries = [
    ...linked.funding.map((raw) => Ledger.fundingEntry(Schema.decodeUnknownSync(FundingBillFromWire)(raw))),
    ...linked.spot.map((raw) => Ledger.spotEntry(Schema.decodeUnknownSync(SpotBillFromWire)(raw)))
  ]
  // Each account's bills are in chain order (time, then the order they were booked in).
  const finalBalances = new Map<string, BigDecimal.BigDecimal>()
  for (const entry of entries) finalBalances.set(`${entry.account}\u0000${entry.bill.coinName}`, entry.bill.afterAmount)
  return { entries, finalBalances }
}
