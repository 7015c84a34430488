/**
 * The history of an account a trader would have, for the demo, `bills fake-exchange` and tests
 * that want bills a person would recognise rather than random ones (`BillGenerator.make`):
 *
 * - deposits into funding (USDT, BTC, ETH), withdrawals from it, a WXT airdrop now and then and,
 *   rarely, a `system_issued` credit (a type no filter lists, which the books flag);
 * - transfers between funding, spot and futures, each with both legs: a `transfer_out` and,
 *   0 to `maxTransferLagMillis` ms later, a `transfer_in` of the same coin and amount in the other
 *   account (the futures leg with `transferReason`);
 * - spot trades on BTC/USDT, ETH/USDT, WXT/USDT and ETH/BTC at prices that move over the year, as
 *   two legs in one millisecond with the same `fillSize` (base quantity) and `fillValue` (quote
 *   value), the 0.1 % fee on the leg received; a market order sometimes fills at two or three
 *   prices in the same millisecond;
 * - a USDT-margined futures account: opening fees, funding fees paid and received while a
 *   position is open, and realised profit or loss when it closes;
 * - per account and coin, `afterAmount = previous afterAmount + deltaAmount` exactly (`deltaAmount`
 *   net of `fees`), never below zero, in amounts a person holds (a few BTC, tens of thousands of
 *   USDT), bill ids increasing with time.
 *
 * Each batch holds exactly the bills asked for per account, spread over its span; the account
 * carries its balances, open position and ids from one batch to the next, and the same seed gives
 * the same bills.
 *
 * @since 0.3.0
 */
import * as BigDecimal from "effect/BigDecimal"
import { contractTransferReason, defaultFirstBillId, defaultFirstContractBillId, formatFixed } from "./BillGenerator.js"
import { maxTransferLagMillis } from "./internal/linkedBills.js"
import * as Prng from "./Prng.js"
import type { ContractWireBill, FundingWireBill, SpotWireBill } from "./WireBill.js"

/**
 * The three accounts of one key.
 *
 * @since 0.3.0
 * @category models
 */
export type TraderAccountKind = "funding" | "spot" | "contract"

/**
 * How an account starts: its seed and first ids.
 *
 * @since 0.3.0
 * @category models
 */
export interface TraderOptions {
  /** Default 1. */
  readonly seed?: number | undefined
  /**
   * Funding and spot ids start above this; default `BillGenerator.defaultFirstBillId` plus
   * 10^10 times the seed (modulo 100,000), so accounts of different seeds share no id.
   */
  readonly firstBillId?: bigint | undefined
  /** Futures ids start above this; default `BillGenerator.defaultFirstContractBillId`, apart by seed as above. */
  readonly firstContractBillId?: bigint | undefined
}

/**
 * One batch: exactly this many bills per account over `[startMillis, endMillis]` (epoch ms).
 *
 * @since 0.3.0
 * @category models
 */
export interface TraderBatch {
  readonly funding: number
  readonly spot: number
  readonly contract: number
  readonly startMillis: number
  readonly endMillis: number
}

/**
 * One leg of a movement, by account and bill id.
 *
 * @since 0.3.0
 * @category models
 */
export interface TraderLeg {
  readonly account: TraderAccountKind
  readonly billId: string
}

/**
 * A batch's bills, each account's in time order, and the movements they book, as generated.
 *
 * @since 0.3.0
 * @category models
 */
export interface TraderBills {
  readonly funding: Array<FundingWireBill>
  readonly spot: Array<SpotWireBill>
  readonly contract: Array<ContractWireBill>
  /** Every spot trade fill: its `trade_out` and `trade_in` bill ids. */
  readonly trades: ReadonlyArray<readonly [string, string]>
  /** Every transfer: its `transfer_out` leg and its `transfer_in` leg. */
  readonly transfers: ReadonlyArray<readonly [TraderLeg, TraderLeg]>
}

/**
 * A trader's account that generates batch after batch, continuing its balances and ids.
 *
 * @since 0.3.0
 * @category models
 */
export interface TraderAccount {
  readonly generate: (batch: TraderBatch) => TraderBills
}

/**
 * The coins of the account (ids as `BillGenerator.defaultCoins`).
 *
 * @since 0.3.0
 * @category constants
 */
export const traderCoins = {
  USDT: { coinId: 1, coinName: "USDT", decimals: 8 },
  BTC: { coinId: 2, coinName: "BTC", decimals: 8 },
  ETH: { coinId: 3, coinName: "ETH", decimals: 8 },
  WXT: { coinId: 7, coinName: "WXT", decimals: 4 }
} as const

/**
 * The demo's year: about 2,000 funding, 6,000 spot and 3,000 futures bills.
 *
 * @since 0.3.0
 * @category constants
 */
export const yearCounts = { funding: 2_000, spot: 6_000, contract: 3_000 } as const

type Coin = (typeof traderCoins)[keyof typeof traderCoins]
type CoinName = keyof typeof traderCoins

const year = 365 * 86_400_000

/** What a withdrawal costs on the coin's usual network. */
const withdrawalFees: Readonly<Record<CoinName, BigDecimal.BigDecimal>> = {
  USDT: BigDecimal.make(1n, 0),
  BTC: BigDecimal.make(2n, 4),
  ETH: BigDecimal.make(15n, 4),
  WXT: BigDecimal.make(5n, 0)
}
const zero = BigDecimal.make(0n, 0)

/** The USDT price of a coin at `t`: a yearly swing and a monthly one around a level. */
const usdtPrice = (coin: CoinName, t: number): number => {
  const phase = (period: number, shift: number) => Math.sin((2 * Math.PI * t) / period + shift)
  switch (coin) {
    case "USDT":
      return 1
    case "BTC":
      return 68_000 * (1 + 0.22 * phase(year, 0.4) + 0.06 * phase(29 * 86_400_000, 1.1))
    case "ETH":
      return 3_100 * (1 + 0.28 * phase(year, 2.0) + 0.08 * phase(23 * 86_400_000, 0.3))
    case "WXT":
      return 0.021 * (1 + 0.35 * phase(year, 4.1) + 0.1 * phase(17 * 86_400_000, 2.2))
  }
}

interface Pair {
  readonly base: CoinName
  readonly quote: CoinName
  /** Decimals of the quantity and of the price; their sum is at most the quote's decimals. */
  readonly qtyDecimals: number
  readonly priceDecimals: number
  readonly weight: number
}

const pairs: ReadonlyArray<Pair> = [
  { base: "BTC", quote: "USDT", qtyDecimals: 6, priceDecimals: 1, weight: 50 },
  { base: "ETH", quote: "USDT", qtyDecimals: 4, priceDecimals: 2, weight: 35 },
  { base: "WXT", quote: "USDT", qtyDecimals: 0, priceDecimals: 5, weight: 4 },
  { base: "ETH", quote: "BTC", qtyDecimals: 4, priceDecimals: 4, weight: 10 }
]

/** `x` rounded down to `decimals` places (x ≥ 0, within 2^53 once scaled). */
const floorTo = (x: number, decimals: number): BigDecimal.BigDecimal =>
  BigDecimal.make(BigInt(Math.max(Math.floor(x * 10 ** decimals), 0)), decimals)

/** One of `items` (non-empty), drawn with probability proportional to `weight`. */
const weighted = <A>(prng: Prng.Prng, items: ReadonlyArray<A>, weight: (item: A) => number): A => {
  let roll = prng.next() * items.reduce((sum, item) => sum + weight(item), 0)
  for (const item of items) {
    roll -= weight(item)
    if (roll < 0) return item
  }
  return items[items.length - 1] as A
}

const num = (value: BigDecimal.BigDecimal): number => BigDecimal.unsafeToNumber(value)

/** The taker fee, 0.1 % of `amount`, rounded down to the coin's decimals. */
const feeOf = (amount: BigDecimal.BigDecimal, decimals: number): BigDecimal.BigDecimal =>
  BigDecimal.make(BigDecimal.scale(amount, decimals).value / 1000n, decimals)

/** A bill before its id and balance: written in time order once the batch is laid out. */
interface Proto {
  readonly account: TraderAccountKind
  readonly coin: Coin
  readonly bizType: string
  readonly delta: BigDecimal.BigDecimal
  readonly fees: BigDecimal.BigDecimal | undefined
  readonly fill: readonly [string, string] | undefined
  readonly symbol: string | null
  readonly transferReason: string | null
  readonly cTime: number
  readonly seq: number
  billId?: string
}

/** Movements to make in a batch, by what they add to each account. */
interface Plan {
  fundingSingles: number
  spotSingles: number
  contractSingles: number
  fundingSpot: number
  fundingContract: number
  spotContract: number
  /** Market orders, each the number of its fills (two spot bills a fill). */
  orders: Array<number>
}

type Movement = Exclude<keyof Plan, "orders"> | "order"

/**
 * Splits the counts into movements so each account gets exactly its bills: a few transfers
 * between each two accounts, trades filling the rest of spot (a spot deposit when an odd bill
 * remains), deposits and withdrawals the rest of funding, and futures trading the rest of futures.
 */
const planOf = (prng: Prng.Prng, batch: TraderBatch, funded: (account: TraderAccountKind) => boolean): Plan => {
  const F = Math.max(Math.floor(batch.funding), 0)
  const S = Math.max(Math.floor(batch.spot), 0)
  const C = Math.max(Math.floor(batch.contract), 0)
  // Funding keeps at least one bill of its own (a deposit) before anything leaves it.
  const fundingRoom = funded("funding") ? F : Math.max(F - 1, 0)
  let fundingSpot = Math.min(Math.floor(Math.min(F, S) * 0.08), fundingRoom)
  if (S > 0 && fundingSpot === 0 && fundingRoom > 0) fundingSpot = 1
  let fundingContract = Math.min(Math.floor(Math.min(F, C) * 0.05), fundingRoom - fundingSpot)
  if (C > 0 && fundingContract === 0 && fundingRoom - fundingSpot > 0) fundingContract = 1
  const spotContract = Math.min(Math.floor(Math.min(S, C) * 0.02), Math.max(C - fundingContract, 0))
  let spotSingles = S > 0 && fundingSpot === 0 && !funded("spot") ? 1 : 0
  // Never below zero: the transfers touching spot are at most one when spot has under 50 bills,
  // 10 % of them above.
  let tradeBills = S - fundingSpot - spotContract - spotSingles
  if (tradeBills % 2 !== 0) {
    if (fundingRoom - fundingSpot - fundingContract > 0) fundingSpot++
    else spotSingles++
    tradeBills--
  }
  const orders: Array<number> = []
  for (let fills = tradeBills / 2; fills > 0; ) {
    const size = Math.min(prng.next() < 0.2 ? prng.between(2, 3) : 1, fills)
    orders.push(size)
    fills -= size
  }
  return {
    fundingSingles: F - fundingSpot - fundingContract,
    spotSingles,
    contractSingles: C - fundingContract - spotContract,
    fundingSpot,
    fundingContract,
    spotContract,
    orders
  }
}

interface Position {
  readonly side: "long" | "short"
  readonly symbol: string
  readonly notional: number
}

/**
 * Creates a trader's account.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (options: TraderOptions = {}): TraderAccount => {
  const prng = Prng.make(((options.seed ?? 1) * 2_654_435_761 + 97) >>> 0)
  /** The chain's balances per `account:coin`, as written. */
  const balances = new Map<string, BigDecimal.BigDecimal>()
  const apart = BigInt(((options.seed ?? 1) >>> 0) % 100_000) * 10_000_000_000n
  let nextBillId = options.firstBillId ?? defaultFirstBillId + apart
  let nextContractBillId = options.firstContractBillId ?? defaultFirstContractBillId + apart
  let position: Position | undefined

  const generate = (batch: TraderBatch): TraderBills => {
    // What can be spent at the current instant: the chain's balances plus what has arrived.
    const available = new Map(balances)
    const pending: Array<Proto> = []
    const protos: Array<Proto> = []
    const tradePairs: Array<readonly [Proto, Proto]> = []
    const transferPairs: Array<readonly [Proto, Proto]> = []
    const key = (account: TraderAccountKind, coin: Coin) => `${account}:${coin.coinName}`
    const held = (account: TraderAccountKind, coin: Coin) => available.get(key(account, coin)) ?? zero
    const value = (account: TraderAccountKind, coin: Coin, t: number) =>
      num(held(account, coin)) * usdtPrice(coin.coinName, t)
    const worth = (account: TraderAccountKind, t: number) =>
      Object.values(traderCoins).reduce((sum, coin) => sum + value(account, coin, t), 0)
    const funded = (account: TraderAccountKind) =>
      Object.values(traderCoins).some((coin) => held(account, coin).value > 0n)
    let seq = 0
    let time = batch.startMillis
    const push = (proto: Omit<Proto, "seq">): Proto => {
      const full: Proto = { ...proto, seq: seq++ }
      protos.push(full)
      const k = key(full.account, full.coin)
      // A leg booked later than now (a transfer's second leg) counts once it has arrived.
      if (full.cTime > time) pending.push(full)
      else available.set(k, BigDecimal.sum(available.get(k) ?? zero, full.delta))
      return full
    }
    const single = (
      account: TraderAccountKind,
      coin: Coin,
      bizType: string,
      delta: BigDecimal.BigDecimal,
      fees?: BigDecimal.BigDecimal,
      symbol: string | null = null
    ) => push({ account, coin, bizType, delta, fees, fill: undefined, symbol, transferReason: null, cTime: time })

    const plan = planOf(prng, batch, funded)
    const movements = (Object.keys(plan) as Array<keyof Plan>).reduce(
      (sum, name) => sum + (name === "orders" ? plan.orders.length : plan[name]),
      0
    )
    const span = Math.max(batch.endMillis - batch.startMillis + 1, 1)
    const width = span / Math.max(movements, 1)

    // --- the movements ---------------------------------------------------------------------

    const deposit = (account: "funding" | "spot") => {
      const roll = prng.next()
      if (roll < 0.6)
        single(account, traderCoins.USDT, "deposit", floorTo(100 + prng.next() * 1_400, prng.pick([0, 2])))
      else if (roll < 0.85) single(account, traderCoins.BTC, "deposit", floorTo(0.004 + prng.next() * 0.08, 5))
      else single(account, traderCoins.ETH, "deposit", floorTo(0.02 + prng.next() * 0.9, 4))
    }

    const fundingSingle = () => {
      const roll = prng.next()
      const withdrawable = Object.values(traderCoins).filter((coin) => value("funding", coin, time) >= 20)
      // The richer the account, the likelier a withdrawal: a person cashes out what they don't trade.
      const rich = worth("funding", time)
      if (roll < 0.12 + (0.3 * rich) / (rich + 15_000) && withdrawable.length > 0) {
        const coin = weighted(prng, withdrawable, (c) => value("funding", c, time))
        const amount = floorTo(
          num(held("funding", coin)) * (0.3 + prng.next() * 0.45),
          coin === traderCoins.USDT ? 2 : 5
        )
        // The network's fee, on the bill and inside its change: what left is amount + fee.
        const fee = withdrawalFees[coin.coinName]
        const total = BigDecimal.sum(amount, fee)
        if (BigDecimal.isPositive(amount) && BigDecimal.lessThanOrEqualTo(total, held("funding", coin))) {
          return void single("funding", coin, "withdraw", BigDecimal.negate(total), fee)
        }
      }
      if (roll > 0.998) {
        // A compensation or correction the exchange books under a type no filter lists.
        return void single("funding", traderCoins.USDT, "system_issued", floorTo(0.5 + prng.next() * 20, 2))
      }
      if (roll > 0.96) {
        return void single("funding", traderCoins.WXT, "airdrop_reward", floorTo(10 + prng.next() * 490, 2))
      }
      deposit("funding")
    }

    /** Both legs of a transfer of part of `from`'s `coin`; undefined when there is too little. */
    const transfer = (from: TraderAccountKind, to: TraderAccountKind, coin: Coin, share: number) => {
      const amount = floorTo(num(held(from, coin)) * share, coin === traderCoins.USDT ? 2 : coin.decimals - 2)
      if (amount.value <= 0n) return false
      const lag = prng.between(0, maxTransferLagMillis)
      const reason = (account: TraderAccountKind) => (account === "contract" ? contractTransferReason : null)
      const out = push({
        account: from,
        coin,
        bizType: "transfer_out",
        delta: BigDecimal.negate(amount),
        fees: undefined,
        fill: undefined,
        symbol: null,
        transferReason: reason(from),
        cTime: time
      })
      const into = push({
        account: to,
        coin,
        bizType: "transfer_in",
        delta: amount,
        fees: undefined,
        fill: undefined,
        symbol: null,
        transferReason: reason(to),
        cTime: Math.min(time + lag, batch.endMillis)
      })
      transferPairs.push([out, into])
      return true
    }

    /** A coin `account` holds worth at least `least` USDT, weighted by worth. */
    const heldCoin = (account: TraderAccountKind, least: number, coins = Object.values(traderCoins)) => {
      const candidates = coins.filter((coin) => value(account, coin, time) >= least)
      return candidates.length === 0 ? undefined : weighted(prng, candidates, (coin) => value(account, coin, time))
    }

    /** Money flows in through funding and back out through it: out when the other side is rich. */
    const fundingSpot = (): boolean => {
      const spotWorth = worth("spot", time)
      // Back to funding only what spot does not need to keep trading.
      const back = !funded("funding") || (spotWorth > 3_000 && prng.next() < spotWorth / (spotWorth + 15_000))
      const [from, to] = back ? (["spot", "funding"] as const) : (["funding", "spot"] as const)
      const coin = heldCoin(from, 1)
      return coin !== undefined && transfer(from, to, coin, back ? 0.2 + prng.next() * 0.4 : 0.4 + prng.next() * 0.55)
    }
    const toContract = (from: "funding" | "spot"): boolean => {
      const usdt = traderCoins.USDT
      const margin = value("contract", usdt, time)
      // Margin comes from what the other account can spare; profits go back when it grows.
      const spare = value(from, usdt, time) >= (from === "spot" ? 500 : 50)
      const back = margin >= 1 && (!spare || prng.next() < margin / (margin + 6_000))
      if (back) return transfer("contract", from, usdt, 0.2 + prng.next() * 0.4)
      return value(from, usdt, time) >= 1 && transfer(from, "contract", usdt, 0.2 + prng.next() * 0.5)
    }

    const order = (fills: number): boolean => {
      const candidates = pairs.flatMap((pair) => {
        const base = traderCoins[pair.base]
        const quote = traderCoins[pair.quote]
        const canBuy = value("spot", quote, time) >= 20
        const canSell = value("spot", base, time) >= 20
        return canBuy || canSell ? [{ pair, base, quote, canBuy, canSell }] : []
      })
      if (candidates.length === 0) return false
      const { base, canBuy, canSell, pair, quote } = weighted(prng, candidates, (c) => c.pair.weight)
      // Keeps the holdings near half in coins, half in the quote.
      const baseWorth = value("spot", base, time)
      const sell = canSell && (!canBuy || prng.next() < baseWorth / (baseWorth + value("spot", quote, time)))
      const mid = usdtPrice(pair.base, time) / usdtPrice(pair.quote, time)
      const tick = 10 ** -pair.priceDecimals
      const budget = sell
        ? num(held("spot", base)) * (0.15 + prng.next() * 0.5)
        : num(held("spot", quote)) * (0.05 + prng.next() * 0.3) * (pair.base === "WXT" ? 0.2 : 1)
      const booked: Array<{
        given: BigDecimal.BigDecimal
        got: BigDecimal.BigDecimal
        fill: readonly [string, string]
      }> = []
      for (let fill = 0; fill < fills; fill++) {
        // Each fill one tick further from the mid, as a market order walks the book.
        const price = floorTo(
          mid * (1 + (prng.next() - 0.5) * 0.002) + (sell ? -fill : fill) * tick,
          pair.priceDecimals
        )
        const share = fills === 1 ? 1 : fill === fills - 1 ? 0.2 : 0.4
        const qty = floorTo(sell ? budget * share : (budget * share) / num(price), pair.qtyDecimals)
        const quoteValue = BigDecimal.multiply(qty, price)
        if (qty.value <= 0n || quoteValue.value <= 0n) return false
        const text = [formatFixed(qty, qty.scale), formatFixed(quoteValue, quoteValue.scale)] as const
        booked.push(sell ? { given: qty, got: quoteValue, fill: text } : { given: quoteValue, got: qty, fill: text })
      }
      const [givenCoin, gotCoin] = sell ? [base, quote] : [quote, base]
      const spent = booked.reduce((sum, fill) => BigDecimal.sum(sum, fill.given), zero)
      if (BigDecimal.greaterThan(spent, held("spot", givenCoin))) return false
      for (const { fill, given, got } of booked) {
        const fee = feeOf(got, gotCoin.decimals)
        const out = push({
          account: "spot",
          coin: givenCoin,
          bizType: "trade_out",
          delta: BigDecimal.negate(given),
          fees: zero,
          fill,
          symbol: null,
          transferReason: null,
          cTime: time
        })
        const into = push({
          account: "spot",
          coin: gotCoin,
          bizType: "trade_in",
          delta: BigDecimal.subtract(got, fee),
          fees: fee,
          fill,
          symbol: null,
          transferReason: null,
          cTime: time
        })
        tradePairs.push([out, into])
      }
      return true
    }

    /** One futures bill: an open, then funding every so often, then the close. */
    const contractSingle = () => {
      const usdt = traderCoins.USDT
      const margin = num(held("contract", usdt))
      const amount = (x: number) => floorTo(x, 4)
      if (margin < 1) {
        // No margin left to trade with: a small funding payment on a position closed meanwhile.
        return void single("contract", usdt, "position_funding", amount(0.01 + prng.next()), zero, "cmt_btcusdt")
      }
      if (position === undefined) {
        const side = prng.next() < 0.6 ? "long" : "short"
        const symbol = prng.next() < 0.65 ? "cmt_btcusdt" : "cmt_ethusdt"
        const notional = margin * (1 + prng.next() * 4) * (0.3 + prng.next() * 0.5)
        const fee = BigDecimal.min(amount(notional * 0.0006), amount(margin * 0.5))
        position = { side, symbol, notional }
        return void single("contract", usdt, `position_open_${side}`, BigDecimal.negate(fee), fee, symbol)
      }
      const open = position
      if (prng.next() < 0.62) {
        const rate = (prng.next() - 0.4) * 0.0004
        const paid = open.side === "long" ? rate > 0 : rate < 0
        const size = amount(Math.min(Math.abs(rate) * open.notional, margin * 0.1) + 0.0001)
        return void single(
          "contract",
          usdt,
          "position_funding",
          paid ? BigDecimal.negate(size) : size,
          zero,
          open.symbol
        )
      }
      position = undefined
      const fee = amount(open.notional * 0.0006)
      const pnl = open.notional * (prng.next() - 0.45) * 0.12 - num(fee)
      const delta = pnl >= 0 ? amount(pnl + 0.0001) : BigDecimal.negate(amount(Math.min(-pnl, margin * 0.9)))
      single(
        "contract",
        usdt,
        `position_close_${open.side}`,
        delta.value === 0n ? amount(0.0001) : delta,
        fee,
        open.symbol
      )
    }

    // --- the batch ---------------------------------------------------------------------------

    const left: Record<Exclude<Movement, "order">, number> & { order: number } = {
      fundingSingles: plan.fundingSingles,
      spotSingles: plan.spotSingles,
      contractSingles: plan.contractSingles,
      fundingSpot: plan.fundingSpot,
      fundingContract: plan.fundingContract,
      spotContract: plan.spotContract,
      order: plan.orders.length
    }
    const names = Object.keys(left) as Array<Movement>
    /** Whether the movement can happen now (the money it moves is there). */
    const possible = (name: Movement): boolean => {
      switch (name) {
        case "fundingSingles":
        case "spotSingles":
          return true
        case "contractSingles":
          // Trading waits for the margin while a transfer in is still to come.
          return funded("contract") || left.fundingContract + left.spotContract === 0
        case "fundingSpot":
          return funded("funding") || funded("spot")
        case "fundingContract":
          return value("funding", traderCoins.USDT, time) >= 1 || value("contract", traderCoins.USDT, time) >= 1
        case "spotContract":
          return value("spot", traderCoins.USDT, time) >= 1 || value("contract", traderCoins.USDT, time) >= 1
        case "order":
          return Object.values(traderCoins).some((coin) => value("spot", coin, time) >= 20)
      }
    }
    /** Makes the movement; false when the money was not there after all. */
    const run = (name: Movement): boolean => {
      switch (name) {
        case "fundingSingles":
          fundingSingle()
          return true
        case "spotSingles":
          deposit("spot")
          return true
        case "contractSingles":
          contractSingle()
          return true
        case "fundingSpot":
          return fundingSpot()
        case "fundingContract":
          return toContract("funding")
        case "spotContract":
          return toContract("spot")
        case "order":
          return order(plan.orders[plan.orders.length - left.order] ?? 1)
      }
    }
    /** What a movement that cannot happen books instead, so every account still gets its bills. */
    const instead = (name: Movement) => {
      const fills = name === "order" ? (plan.orders[plan.orders.length - left.order] ?? 1) : 0
      for (let i = 0; i < fills * 2; i++) deposit("spot")
      if (name === "fundingSpot" || name === "fundingContract") deposit("funding")
      if (name === "fundingSpot" || name === "spotContract") deposit("spot")
      if (name === "fundingContract" || name === "spotContract") contractSingle()
    }

    for (let i = 0; i < movements; i++) {
      time = Math.min(batch.startMillis + Math.floor((i + prng.next()) * width), batch.endMillis)
      for (let p = pending.length - 1; p >= 0; p--) {
        const proto = pending[p] as Proto
        if (proto.cTime <= time) {
          const k = key(proto.account, proto.coin)
          available.set(k, BigDecimal.sum(available.get(k) ?? zero, proto.delta))
          pending.splice(p, 1)
        }
      }
      const open = names.filter((name) => left[name] > 0)
      const ready = open.filter(possible)
      const pool = ready.length > 0 ? ready : open
      const name = weighted(prng, pool, (n) => left[n])
      if (!(ready.length > 0 && run(name))) instead(name)
      left[name]--
    }

    // Time order (booking order within a millisecond), then ids and balances in that order.
    protos.sort((a, b) => a.cTime - b.cTime || a.seq - b.seq)
    const funding: Array<FundingWireBill> = []
    const spot: Array<SpotWireBill> = []
    const contract: Array<ContractWireBill> = []
    for (const proto of protos) {
      const k = key(proto.account, proto.coin)
      const after = BigDecimal.sum(balances.get(k) ?? zero, proto.delta)
      balances.set(k, after)
      const step = BigInt(prng.between(1, 997))
      if (proto.account === "contract") nextContractBillId += step
      else nextBillId += step
      proto.billId = (proto.account === "contract" ? nextContractBillId : nextBillId).toString()
      const deltaAmount = formatFixed(proto.delta, proto.delta.scale)
      const afterAmount = formatFixed(after, Math.max(after.scale, proto.coin.decimals))
      const fees = proto.fees === undefined ? "0" : formatFixed(proto.fees, proto.fees.scale)
      const cTime = String(proto.cTime)
      if (proto.account === "contract") {
        contract.push({
          billId: proto.billId,
          coinName: proto.coin.coinName,
          symbol: proto.symbol,
          bizType: proto.bizType,
          deltaAmount,
          afterAmount,
          fees,
          cTime,
          transferReason: proto.transferReason
        })
        continue
      }
      const common = {
        billId: proto.billId,
        coinId: proto.coin.coinId,
        coinName: proto.coin.coinName,
        bizType: proto.bizType,
        deltaAmount,
        afterAmount,
        fees,
        cTime
      }
      if (proto.account === "funding") funding.push({ ...common, fillSize: null, fillValue: null })
      else spot.push({ ...common, fillSize: proto.fill?.[0] ?? "0", fillValue: proto.fill?.[1] ?? "0" })
    }
    const leg = (proto: Proto): TraderLeg => ({ account: proto.account, billId: proto.billId as string })
    return {
      funding,
      spot,
      contract,
      trades: tradePairs.map(([out, into]) => [out.billId as string, into.billId as string] as const),
      transfers: transferPairs.map(([out, into]) => [leg(out), leg(into)] as const)
    }
  }

  return { generate }
}

/**
 * A year of a trader's account up to `endMillis` (default 2025-12-31T23:59:59.999Z) with
 * {@link yearCounts} bills unless told otherwise.
 *
 * @since 0.3.0
 * @category constructors
 */
export const ofYear = (options: TraderOptions & Partial<TraderBatch> = {}): TraderBills => {
  const endMillis = options.endMillis ?? Date.UTC(2025, 11, 31, 23, 59, 59, 999)
  return make(options).generate({
    funding: options.funding ?? yearCounts.funding,
    spot: options.spot ?? yearCounts.spot,
    contract: options.contract ?? yearCounts.contract,
    startMillis: options.startMillis ?? endMillis - year + 1,
    endMillis
  })
}
