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
import {
  type LinkedBatch as Batch,
  type LinkedBills as Linked,
  linkedBatch,
  type TradeFees as Fees
} from "./internal/linkedBills.js"
import * as Prng from "./Prng.js"
import type { Account, ContractWireBill, FundingWireBill, SpotWireBill, WireBill, WireBillOf } from "./WireBill.js"

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
 * Coins whose names collide in the journal tools' commodity rules, for the books' hard cases:
 * `A-B`, `A_B` and `a-b` are one Beancount account part (`A-B`), `A/B` is hledger's and
 * Ledger's `A_B` once its slash is replaced, and the two long names are one Beancount symbol cut
 * at 24 characters. Beside them USDT and BTC, so that trades have a quote coin.
 *
 * @since 0.3.0
 * @category constants
 */
export const collidingCoins: ReadonlyArray<CoinSpec> = [
  { coinId: 1, coinName: "USDT", decimals: 6 },
  { coinId: 2, coinName: "BTC", decimals: 8 },
  { coinId: 11, coinName: "A-B", decimals: 4 },
  { coinId: 12, coinName: "A_B", decimals: 4 },
  { coinId: 13, coinName: "a-b", decimals: 2 },
  { coinId: 14, coinName: "A/B", decimals: 3 },
  { coinId: 15, coinName: "AVERYLONGCOINNAMEBEYONDTWENTYFOUR1", decimals: 2 },
  { coinId: 16, coinName: "AVERYLONGCOINNAMEBEYONDTWENTYFOUR2", decimals: 2 }
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
/**
 * What one batch of linked bills asks for: how many of each account, and the ties and dropped
 * legs to make (see `generateLinked`).
 *
 * @since 0.2.0
 * @category models
 */
export type LinkedBatch = Batch

/**
 * A batch of linked bills: funding and spot bills whose trades have both legs and whose
 * transfers between the two accounts have both legs, with consistent balance chains.
 *
 * @since 0.2.0
 * @category models
 */
export type LinkedBills = Linked

/**
 * Which leg of a generated trade carries its fee (see `LinkedBatch.tradeFees`).
 *
 * @since 0.3.0
 * @category models
 */
export type TradeFees = Fees

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
 * The time of the `i`-th bill of a batch (called with 0, 1, 2, ... in turn): one random point per
 * equal-width bin, which keeps times sorted without a sort, and runs of one millisecond as
 * `sameMillisecondGroup` asks. One draw of `prng` a bill.
 */
const batchTimes = (prng: Prng.Prng, batch: BatchOptions): ((i: number) => number) => {
  const span = Math.max(batch.endMillis - batch.startMillis + 1, 1)
  const width = span / Math.max(batch.count, 1)
  const group = batch.sameMillisecondGroup
  let groupLeft = 0
  let groupTime = batch.startMillis
  return (i) => {
    const cTime = Math.min(batch.startMillis + Math.floor((i + prng.next()) * width), batch.endMillis)
    if (groupLeft > 0) {
      groupLeft--
      return groupTime
    }
    if (group !== undefined && group.size > 1 && i % Math.max(group.every, 1) === 0) {
      groupTime = cTime
      groupLeft = group.size - 1
    }
    return cTime
  }
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
    const timeOf = batchTimes(prng, batch)
    for (let i = 0; i < batch.count; i++) out.push(one(account, timeOf(i)))
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

/**
 * Where generated contract billIds start: above 2^53, apart from the other two accounts' ids.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultFirstContractBillId = 836825748291061726n

/**
 * The `transferReason` the generator writes on the futures account's transfers (an assumption:
 * the docs name several reasons and no sample shows which one a user's own transfer carries).
 *
 * @since 0.2.0
 * @category constants
 */
export const contractTransferReason = "USER_TRANSFER"

/**
 * Most milliseconds between a transfer's two legs in generated histories.
 *
 * @since 0.2.0
 * @category constants
 */
export const transferLegMillis = 3000

/**
 * One futures history to generate: `count` bills of its own (trading, funding, an incomeType the
 * docs do not list) over `[startMillis, endMillis]`, plus one transfer for each funding or spot
 * transfer in `transfers` that it takes part in.
 *
 * @since 0.2.0
 * @category models
 */
export interface ContractBatch {
  readonly count: number
  readonly startMillis: number
  readonly endMillis: number
  /** Default 1; its own sequence, so the other two accounts' bills stay as they were. */
  readonly seed?: number | undefined
  readonly coins?: ReadonlyArray<CoinSpec> | undefined
  readonly firstBillId?: bigint | undefined
  readonly sameMillisecondGroup?: SameMillisecondGroup | undefined
  /** The same account's funding and spot bills: their transfers are matched here. */
  readonly transfers?: ReadonlyArray<FundingWireBill | SpotWireBill> | undefined
}

/** incomeTypes of generated trading bills, with what they do to the balance. */
const contractTrading: ReadonlyArray<{ readonly type: string; readonly sign: "fee" | "either" | "in" }> = [
  { type: "position_open_long", sign: "fee" },
  { type: "position_open_short", sign: "fee" },
  { type: "position_close_long", sign: "either" },
  { type: "position_close_short", sign: "either" },
  { type: "position_funding", sign: "either" },
  { type: "tracking_follow_back", sign: "in" },
  // Not in the docs' list: kept as it is, never dropped.
  { type: "insurance_rebate", sign: "in" }
]

/**
 * A futures account's history, consistent with the same account's funding and spot bills:
 *
 * - per asset, `afterAmount = previous afterAmount + deltaAmount` exactly, never below zero;
 * - every funding or spot `transfer_out` has a contract `transfer_in` of the same coin name and
 *   amount 1 to {@link transferLegMillis} ms later; every funding or spot `transfer_in` has a
 *   contract `transfer_out` of the same coin and amount 1 to 3,000 ms earlier when the contract
 *   balance then covers it (otherwise it came from the other of funding and spot: no contract
 *   leg); each contract transfer has exactly one counterpart and carries `transferReason`;
 * - trading bills (`count` of them) name a `symbol`, carry `fees` on opens and closes, and
 *   include an incomeType the docs do not list;
 * - billIds are digit strings above 2^53 increasing with time; cTimes never decrease.
 *
 * @since 0.2.0
 * @category constructors
 */
export const generateContract = (batch: ContractBatch): Array<ContractWireBill> => {
  const prng = Prng.make((batch.seed ?? 1) * 7919 + 17)
  const coins = batch.coins ?? defaultCoins
  type Slot =
    | { readonly _tag: "Trade"; readonly at: number }
    | {
        readonly _tag: "Transfer"
        readonly at: number
        readonly coin: string
        readonly amount: BigDecimal.BigDecimal
        readonly into: boolean
      }
  const slots: Array<Slot> = []
  const timeOf = batchTimes(prng, batch)
  for (let i = 0; i < batch.count; i++) slots.push({ _tag: "Trade", at: timeOf(i) })
  for (const bill of batch.transfers ?? []) {
    if (bill.bizType !== "transfer_out" && bill.bizType !== "transfer_in") continue
    const amount = BigDecimal.fromString(bill.deltaAmount.replace(/^-/, ""))
    if (amount._tag === "None" || !BigDecimal.isPositive(amount.value)) continue
    const gap = prng.between(1, transferLegMillis)
    const into = bill.bizType === "transfer_out"
    const at = Number(bill.cTime) + (into ? gap : -gap)
    if (at < 0) continue
    slots.push({ _tag: "Transfer", at, coin: bill.coinName, amount: amount.value, into })
  }
  // Stable: trades keep their generated order, transfers follow their source's order.
  slots.sort((a, b) => a.at - b.at)
  const decimalsOf = (coin: string) => coins.find((c) => c.coinName === coin)?.decimals ?? 8
  const balances = new Map<string, BigDecimal.BigDecimal>()
  let nextBillId = batch.firstBillId ?? defaultFirstContractBillId
  const out: Array<ContractWireBill> = []
  const write = (
    coin: string,
    bizType: string,
    delta: BigDecimal.BigDecimal,
    fees: string,
    at: number,
    symbol: string | null,
    transferReason: string | null
  ) => {
    const after = BigDecimal.sum(balances.get(coin) ?? zero, delta)
    balances.set(coin, after)
    nextBillId += BigInt(prng.between(1, 997))
    out.push({
      billId: nextBillId.toString(),
      coinName: coin,
      symbol,
      bizType,
      deltaAmount: formatFixed(delta, delta.scale),
      afterAmount: formatFixed(after, Math.max(after.scale, decimalsOf(coin))),
      fees,
      cTime: String(at),
      transferReason
    })
  }
  for (const slot of slots) {
    if (slot._tag === "Transfer") {
      const balance = balances.get(slot.coin) ?? zero
      if (slot.into) write(slot.coin, "transfer_in", slot.amount, "0", slot.at, null, contractTransferReason)
      else if (BigDecimal.greaterThanOrEqualTo(balance, slot.amount)) {
        write(slot.coin, "transfer_out", BigDecimal.negate(slot.amount), "0", slot.at, null, contractTransferReason)
      }
      continue
    }
    const coin = prng.pick(coins)
    const balance = balances.get(coin.coinName) ?? zero
    const kind = prng.pick(contractTrading)
    let magnitude = randomAmount(prng, coin.decimals)
    const negative = kind.sign === "fee" || (kind.sign === "either" && prng.next() < 0.5)
    // A loss larger than the balance would take it below zero: the position is closed at zero.
    if (negative && BigDecimal.greaterThan(magnitude, balance)) magnitude = balance
    const delta = negative ? BigDecimal.negate(magnitude) : magnitude
    const trades = kind.type.startsWith("position_open") || kind.type.startsWith("position_close")
    const fees = trades ? formatFixed(BigDecimal.make(BigInt(prng.int(100_000)), coin.decimals), coin.decimals) : "0"
    write(coin.coinName, kind.type, delta, fees, slot.at, `cmt_${coin.coinName.toLowerCase()}usdt`, null)
  }
  return out
}
