/**
 * Seeded accounts of one key for the journal tests: funding and spot bills with consistent
 * balance chains (the fee inside `deltaAmount`, as the fake exchange writes it), holding
 * deposits, withdrawals, spot trades with both legs in one millisecond (some with a fee on the
 * leg received), several trades tied in one millisecond, internal transfers (legs in one
 * millisecond or a few seconds apart), rewards, an unknown business type and an unpaired leg,
 * over many days. Coins with names each tool needs to rewrite: `1INCH`, `btc-perp`, a long one.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"
import { FundingBillFromWire, Ledger, SpotBillFromWire } from "../../src/index.js"
import { BillGenerator, Prng } from "../../src/testing/index.js"

type Account = "funding" | "spot"

export interface KeyAccounts {
  readonly entries: ReadonlyArray<Ledger.LedgerEntry>
  /** `account\u0000coin` -> the last balance the exchange reported. */
  readonly finalBalances: ReadonlyMap<string, BigDecimal.BigDecimal>
}

export const coins: ReadonlyArray<{ readonly coinId: number; readonly coinName: string; readonly decimals: number }> = [
  { coinId: 1, coinName: "USDT", decimals: 6 },
  { coinId: 2, coinName: "BTC", decimals: 8 },
  { coinId: 3, coinName: "1INCH", decimals: 4 },
  { coinId: 4, coinName: "btc-perp", decimals: 3 },
  { coinId: 5, coinName: "AVERYLONGCOINNAMEBEYONDTWENTYFOUR", decimals: 2 }
]

const fixed = BillGenerator.formatFixed
const zero = BigDecimal.make(0n, 0)
const start = Date.UTC(2025, 2, 1)

export const generate = (seed: number, steps: number): KeyAccounts => {
  const prng = Prng.make(seed)
  const balances = new Map<string, BigDecimal.BigDecimal>()
  const wire: Array<{ readonly account: Account; readonly raw: Record<string, unknown> }> = []
  let id = 736825748291061726n
  let t = start + prng.int(1000)

  const balanceOf = (account: Account, coinId: number) => balances.get(`${account}:${coinId}`) ?? zero
  const amount = (decimals: number, max: number) =>
    BigDecimal.make(BigInt(prng.between(1, max)) * 10n ** BigInt(decimals) + BigInt(prng.int(10 ** decimals)), decimals)
  const bill = (
    account: Account,
    coin: (typeof coins)[number],
    bizType: string,
    delta: BigDecimal.BigDecimal,
    at: number,
    extra: { fees?: BigDecimal.BigDecimal; fillSize?: string; fillValue?: string } = {}
  ) => {
    const after = BigDecimal.sum(balanceOf(account, coin.coinId), delta)
    balances.set(`${account}:${coin.coinId}`, after)
    id += BigInt(prng.between(1, 40))
    const raw: Record<string, unknown> = {
      billId: id.toString(),
      coinId: coin.coinId,
      coinName: coin.coinName,
      bizType,
      deltaAmount: fixed(delta, delta.scale),
      afterAmount: fixed(after, coin.decimals),
      fees: extra.fees === undefined ? "0" : fixed(extra.fees, extra.fees.scale),
      cTime: String(at)
    }
    if (account === "spot") {
      raw.fillSize = extra.fillSize ?? null
      raw.fillValue = extra.fillValue ?? null
    }
    wire.push({ account, raw })
  }
  const held = (account: Account) => coins.filter((coin) => BigDecimal.isPositive(balanceOf(account, coin.coinId)))

  const trade = (at: number) => {
    const quote = coins[0] as (typeof coins)[number]
    const base = prng.pick(coins.slice(1))
    const spent = BigDecimal.min(amount(2, 50), balanceOf("spot", quote.coinId))
    if (!BigDecimal.isPositive(spent)) return
    const got = amount(base.decimals, 20)
    const fee = prng.next() < 0.5 ? zero : BigDecimal.make(BigInt(prng.between(1, 99)), base.decimals)
    const fill = { fillSize: fixed(got, got.scale), fillValue: fixed(spent, spent.scale) }
    bill("spot", quote, "trade_out", BigDecimal.negate(spent), at, fill)
    bill("spot", base, "trade_in", BigDecimal.subtract(got, fee), at, { ...fill, fees: fee })
  }

  for (let step = 0; step < steps; step++) {
    t += prng.next() < 0.15 ? prng.between(3_600_000, 30 * 3_600_000) : prng.between(1, 90_000)
    const roll = prng.next()
    if (step < 2 || roll < 0.15) {
      const coin = step === 0 ? (coins[0] as (typeof coins)[number]) : prng.pick(coins)
      bill(prng.next() < 0.5 ? "funding" : "spot", coin, "deposit", amount(coin.decimals, 5000), t)
    } else if (roll < 0.45) {
      trade(t)
    } else if (roll < 0.55) {
      // Several trades in one millisecond, each with its own fill.
      for (let k = prng.between(2, 3); k > 0; k--) trade(t)
    } else if (roll < 0.75) {
      const from: Account = prng.next() < 0.5 ? "funding" : "spot"
      const to: Account = from === "funding" ? "spot" : "funding"
      const candidates = held(from)
      if (candidates.length === 0) continue
      const coin = prng.pick(candidates)
      const moved = BigDecimal.min(amount(coin.decimals, 100), balanceOf(from, coin.coinId))
      bill(from, coin, "transfer_out", BigDecimal.negate(moved), t)
      const later = prng.next() < 0.5 ? t : t + prng.between(1, 3000)
      bill(to, coin, "transfer_in", moved, later)
      t = later
    } else if (roll < 0.85) {
      const account: Account = prng.next() < 0.5 ? "funding" : "spot"
      const candidates = held(account)
      if (candidates.length === 0) continue
      const coin = prng.pick(candidates)
      bill(
        account,
        coin,
        "withdraw",
        BigDecimal.negate(BigDecimal.min(amount(coin.decimals, 30), balanceOf(account, coin.coinId))),
        t
      )
    } else if (roll < 0.95) {
      const coin = prng.pick(coins)
      bill("spot", coin, "airdrop_reward", amount(coin.decimals, 3), t)
    } else {
      const coin = prng.pick(coins)
      bill("funding", coin, "system_issued", amount(coin.decimals, 2), t)
    }
  }
  // One leg whose other leg is not there: it must go to suspense, never be dropped.
  const lone = coins[1] as (typeof coins)[number]
  t += 1000
  bill("spot", lone, "trade_in", amount(lone.decimals, 1), t, { fillSize: "1", fillValue: "2" })

  const entries = wire.map(({ account, raw }) =>
    account === "funding"
      ? Ledger.fundingEntry(Schema.decodeUnknownSync(FundingBillFromWire)(raw))
      : Ledger.spotEntry(Schema.decodeUnknownSync(SpotBillFromWire)(raw))
  )
  const finalBalances = new Map<string, BigDecimal.BigDecimal>()
  for (const entry of entries) finalBalances.set(`${entry.account}\u0000${entry.bill.coinName}`, entry.bill.afterAmount)
  return { entries, finalBalances }
}
