/**
 * Deterministic generator of realistic wire bills for the fake exchange.
 *
 * What it guarantees, so tests can check a client against it:
 * - the same seed and options give identical bills on every run;
 * - billIds are unique digit strings above 2^53, increasing in generation order;
 * - cTimes never decrease, so generation order is the canonical (cTime, billId) order;
 * - per account and coin, `afterAmount = previous afterAmount + deltaAmount` exactly
 *   (`deltaAmount` is net of `fees`; `fees` is reported beside it and not subtracted again);
 * - balances never go negative; amounts carry varied numbers of decimals.
 *
 * @since 0.1.0
 */
import * as BigDecimal from "effect/BigDecimal"
import { fundingBizTypes, spotBizTypes } from "../Operation.js"
import { fixed } from "../internal/decimalText.js"
import { type LinkedBatch, type LinkedBills, linkedBatch } from "./internal/linkedBills.js"
import * as Prng from "./Prng.js"
import type { Account, FundingWireBill, SpotWireBill, WireBill, WireBillOf } from "./WireBill.js"

/**
 * A currency the generator draws bills in.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoinSpec {
  readonly coinId: number
  readonly coinName: string
  /** Most decimals an amount of this coin carries; `afterAmount` is written with exactly this many. */
  readonly decimals: number
}

/**
 * Coins used when none are given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCoins: ReadonlyArray<CoinSpec> = [
  { coinId: 1, coinName: "USDT", decimals: 8 },
  { coinId: 2, coinName: "BTC", decimals: 8 },
  { coinId: 3, coinName: "ETH", decimals: 8 },
  { coinId: 7, coinName: "WXT", decimals: 4 }
]

/**
 * bizType values real responses carry although the interface does not list them.
 *
 * @since 0.1.0
 * @category constants
 */
export const unlistedBizTypes = ["rake_back_reward", "airdrop_reward", "system_issued"] as const

/**
 * bizTypes drawn when none are given: the listed filter values plus the unlisted ones.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBizTypes: Readonly<Record<Account, ReadonlyArray<string>>> = {
  funding: [...fundingBizTypes, ...unlistedBizTypes],
  spot: [...spotBizTypes, ...unlistedBizTypes]
}

/**
 * bizTypes that take money out of the account: their deltaAmount is negative.
 *
 * @since 0.1.0
 * @category constants
 */
export const outflowBizTypes: ReadonlySet<string> = new Set([
  "withdraw",
  "transfer_out",
  "sell",
  "c2c_sell",
  "trade_out"
])

/**
 * bizTypes of trades: they carry fees (and, on spot, fillSize and fillValue).
 *
 * @since 0.1.0
 * @category constants
 */
export const tradeBizTypes: ReadonlySet<string> = new Set(["buy", "sell", "trade_in", "trade_out"])
const inflowFallback = "deposit"

/**
 * Where the first generated billId starts; above 2^53 like the real ids.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultFirstBillId = 736825748291061726n

/**
 * Bills that share one millisecond: every `every` bills, a run of `size` bills gets one cTime.
 *
 * @since 0.1.0
 * @category models
 */
export interface SameMillisecondGroup {
  readonly every: number
  readonly size: number
}

/**
 * Options of the generator itself (shared by every batch it produces).
 *
 * @since 0.1.0
 * @category models
 */
export interface GeneratorOptions {
  /** Default 1. */
  readonly seed?: number | undefined
  readonly coins?: ReadonlyArray<CoinSpec> | undefined
  /** Per account; default {@link defaultBizTypes}. */
  readonly bizTypes?: Partial<Record<Account, ReadonlyArray<string>>> | undefined
  readonly firstBillId?: bigint | undefined
}

/**
 * One batch: how many bills, over which time span (epoch ms, both ends inclusive).
 *
 * @since 0.1.0
 * @category models
 */
export interface BatchOptions {
  readonly count: number
  readonly startMillis: number
  readonly endMillis: number
  readonly sameMillisecondGroup?: SameMillisecondGroup | undefined
}

/**
 * A stateful generator: balances, the billId counter and the random sequence carry over from
 * one batch to the next, so appended batches continue the exact balance chains.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillGenerator {
  readonly generate: <A extends Account>(account: A, batch: BatchOptions) => Array<WireBillOf[A]>
  /** Takes note of a bill that did not come from this generator (its balance and id). */
  readonly observe: (account: Account, bill: WireBill) => void
  /**
   * Bills of both accounts booked as linked movements: trades as two legs, transfers between
   * funding and spot with both legs (see {@link LinkedBills}).
   *
   * @since 0.2.0
   */
  readonly generateLinked: (batch: LinkedBatch) => LinkedBills
}

/**
 * A batch of linked bills: how many bills (both accounts together), over which span, with
 * which ties and missing legs.
 *
 * @since 0.2.0
 * @category models
 */
export type { LinkedBatch, LinkedBills }

const zero = BigDecimal.make(0n, 0)

/**
 * Writes a decimal with exactly `decimals` places (never exponent notation, unlike `BigDecimal.format`).
 *
 * @since 0.1.0
 * @category utils
 */
export const formatFixed = (value: BigDecimal.BigDecimal, decimals: number): string => fixed(value, decimals)

const randomAmount = (prng: Prng.Prng, decimals: number): BigDecimal.BigDecimal => {
  const scale = prng.between(0, decimals)
  const magnitude = 10 ** prng.between(0, 6)
  // Integer part up to ~10^6 whatever the scale, so amounts stay plausible.
  const mantissa =
    BigInt(prng.between(0, magnitude)) * 10n ** BigInt(scale) + BigInt(prng.int(10 ** Math.min(scale, 6)))
  return BigDecimal.make(mantissa === 0n ? 1n : mantissa, scale)
}

/**
 * Creates a generator.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: GeneratorOptions = {}): BillGenerator => {
  const prng = Prng.make(options.seed ?? 1)
  const coins = options.coins ?? defaultCoins
  const bizTypes: Record<Account, ReadonlyArray<string>> = {
    funding: options.bizTypes?.funding ?? defaultBizTypes.funding,
    spot: options.bizTypes?.spot ?? defaultBizTypes.spot
  }
  const balances = new Map<string, BigDecimal.BigDecimal>()
  let nextBillId = options.firstBillId ?? defaultFirstBillId

  const one = (account: Account, cTime: number): WireBill => {
    const coin = prng.pick(coins)
    const key = `${account}:${coin.coinId}`
    const balance = balances.get(key) ?? zero
    let bizType = prng.pick(bizTypes[account])
    // An outflow from an empty balance would go negative; real ledgers do not.
    if (outflowBizTypes.has(bizType) && !BigDecimal.isPositive(balance)) bizType = inflowFallback
    const outflow = outflowBizTypes.has(bizType)
    let magnitude = randomAmount(prng, coin.decimals)
    if (outflow && BigDecimal.greaterThan(magnitude, balance)) magnitude = balance
    const delta = outflow ? BigDecimal.negate(magnitude) : magnitude
    const after = BigDecimal.sum(balance, delta)
    balances.set(key, after)
    const trade = tradeBizTypes.has(bizType)
    const fees = trade ? formatFixed(BigDecimal.make(BigInt(prng.int(100_000)), coin.decimals), coin.decimals) : "0"
    nextBillId += BigInt(prng.between(1, 997))
    const common = {
      billId: nextBillId.toString(),
      coinId: coin.coinId,
      coinName: coin.coinName,
      bizType,
      deltaAmount: formatFixed(delta, delta.scale),
      afterAmount: formatFixed(after, Math.max(after.scale, coin.decimals)),
      fees,
      cTime: String(cTime)
    }
    if (account === "funding") {
      const bill: FundingWireBill = { ...common, fillSize: null, fillValue: null }
      return bill
    }
    const bill: SpotWireBill = {
      billId: common.billId,
      coinId: common.coinId,
      coinName: common.coinName,
      bizType,
      fillSize: trade ? formatFixed(magnitude, magnitude.scale) : "0",
      fillValue: trade ? formatFixed(BigDecimal.make(BigInt(prng.between(1, 100_000_000)), 2), 2) : "0",
      deltaAmount: common.deltaAmount,
      afterAmount: common.afterAmount,
      fees,
      cTime: common.cTime
    }
    return bill
  }

  const generate = <A extends Account>(account: A, batch: BatchOptions): Array<WireBillOf[A]> => {
    const out: Array<WireBill> = []
    const span = Math.max(batch.endMillis - batch.startMillis + 1, 1)
    const width = span / Math.max(batch.count, 1)
    const group = batch.sameMillisecondGroup
    let groupLeft = 0
    let groupTime = batch.startMillis
    for (let i = 0; i < batch.count; i++) {
      // One random point per equal-width bin keeps times sorted without a sort.
      let cTime = Math.min(batch.startMillis + Math.floor((i + prng.next()) * width), batch.endMillis)
      if (groupLeft > 0) {
        cTime = groupTime
        groupLeft--
      } else if (group !== undefined && group.size > 1 && i % Math.max(group.every, 1) === 0) {
        groupTime = cTime
        groupLeft = group.size - 1
      }
      out.push(one(account, cTime))
    }
    return out as Array<WireBillOf[A]>
  }

  const observe = (account: Account, bill: WireBill): void => {
    const after = BigDecimal.fromString(bill.afterAmount)
    if (after._tag === "Some") balances.set(`${account}:${bill.coinId}`, after.value)
    if (/^\d+$/.test(bill.billId)) {
      const id = BigInt(bill.billId)
      if (id > nextBillId) nextBillId = id
    }
  }

  const generateLinked = (batch: LinkedBatch): LinkedBills =>
    linkedBatch(
      {
        prng,
        coins,
        balances,
        amount: (decimals) => randomAmount(prng, decimals),
        format: formatFixed,
        nextId: () => {
          nextBillId += BigInt(prng.between(1, 997))
          return nextBillId.toString()
        }
      },
      batch
    )

  return { generate, observe, generateLinked }
}
