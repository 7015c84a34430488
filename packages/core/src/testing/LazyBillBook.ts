/**
 * A read-mostly `BillBook` of generated bills that are never stored: bill `i` is computed on
 * demand from a deterministic function of `(seed, i)`, so a fake exchange can serve millions of
 * bills in constant memory (benchmarks, soak tests).
 *
 * How it stays a faithful book:
 * - `cTime(i) = startMillis + i * step + jitter(i)` with `0 <= jitter < step`: strictly
 *   increasing in `i` (one bill per millisecond at most), so the index of a time bound is
 *   arithmetic, not a search;
 * - billIds are digit strings above 2^53, strictly increasing in `i`;
 * - balances chain exactly per coin: `afterAmount(i)` is a function of `i` alone, and
 *   `deltaAmount(i) = afterAmount(i) - afterAmount(previous bill of the same coin)`, so the
 *   deltas telescope; the previous bill of a coin is found by stepping back over the (cheap)
 *   coin function, a few steps on average. The bizType follows the sign of the delta
 *   (outflows negative), and balances are never negative.
 *
 * Unfiltered queries cost O(page). Queries filtered by coinId or bizType scan the time window
 * (O(window)), and the funding `total` is counted only when read. `all()` materializes every
 * bill (use it on small books only), and `insert` turns the book into an ordinary eager one
 * first. The bills are not the ones the eager generator draws from the same seed.
 *
 * @since 0.1.0
 */
import * as BillBook from "./BillBook.js"
import * as BillGenerator from "./BillGenerator.js"
import type { Account, FundingWireBill, SpotWireBill, WireBill, WireBillOf } from "./WireBill.js"

/**
 * What a lazy book holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface LazyBookOptions {
  readonly count: number
  /** First possible cTime (epoch ms). */
  readonly startMillis: number
  /**
   * Last intended cTime (epoch ms): bills are spread evenly over `[startMillis, endMillis]`,
   * one millisecond apart at least (so more bills than milliseconds run past `endMillis`).
   */
  readonly endMillis: number
  /** Default 1. */
  readonly seed?: number | undefined
  readonly coins?: ReadonlyArray<BillGenerator.CoinSpec> | undefined
  /** Default: {@link BillGenerator.defaultBizTypes} of the account. */
  readonly bizTypes?: ReadonlyArray<string> | undefined
  readonly firstBillId?: bigint | undefined
}

/**
 * A lazy book, with what a fake exchange needs to continue its balances.
 *
 * @since 0.1.0
 * @category models
 */
export interface LazyBillBook<B extends WireBill> extends BillBook.BillBook<B> {
  /** Bill `index` (0-based, oldest first), computed. */
  readonly at: (index: number) => B
  /** The last bill of each coin: where appended bills continue the balance chains. */
  readonly lastOfEachCoin: () => ReadonlyArray<B>
}

/** A 32-bit integer hash (lowbias32). */
const mix = (value: number): number => {
  let x = value >>> 0
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d)
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b)
  return (x ^ (x >>> 16)) >>> 0
}

/** Writes `mantissa / 10^scale` with exactly `scale` decimals. */
const fixed = (mantissa: bigint, scale: number): string => {
  const negative = mantissa < 0n
  const digits = (negative ? -mantissa : mantissa).toString().padStart(scale + 1, "0")
  const integer = digits.slice(0, digits.length - scale)
  const fraction = digits.slice(digits.length - scale)
  return (negative ? "-" : "") + integer + (scale === 0 ? "" : `.${fraction}`)
}

/**
 * Creates a lazy book of `account` bills.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A extends Account>(account: A, options: LazyBookOptions): LazyBillBook<WireBillOf[A]> => {
  type B = WireBillOf[A]
  const count = Math.max(0, Math.floor(options.count))
  const start = options.startMillis
  const step = Math.max(1, Math.floor((options.endMillis - start + 1) / Math.max(count, 1)))
  const coins = options.coins ?? BillGenerator.defaultCoins
  const bizTypes = options.bizTypes ?? BillGenerator.defaultBizTypes[account]
  const outflows = bizTypes.filter((type) => BillGenerator.outflowBizTypes.has(type))
  const inflows = bizTypes.filter((type) => !BillGenerator.outflowBizTypes.has(type))
  const firstBillId = options.firstBillId ?? BillGenerator.defaultFirstBillId
  const seed = mix(options.seed ?? 1)
  const hash = (index: number, salt: number): number => mix(mix(index ^ Math.imul(salt, 0x9e3779b1)) ^ seed)
  const scales = coins.map((coin) => 10n ** BigInt(coin.decimals))

  const cTime = (i: number): number => start + i * step + (step > 1 ? hash(i, 1) % step : 0)
  const coinIndex = (i: number): number => hash(i, 2) % coins.length
  /** Balance of the coin of bill `i` after it, as a mantissa at the coin's decimals. */
  const level = (i: number, coin: number): bigint =>
    BigInt(hash(i, 3) % 1_000_000) * (scales[coin] as bigint) + (BigInt(hash(i, 4)) % (scales[coin] as bigint))
  const previousOfCoin = (i: number, coin: number): number => {
    let j = i - 1
    while (j >= 0 && coinIndex(j) !== coin) j--
    return j
  }

  const at = (i: number): B => {
    const coinAt = coinIndex(i)
    const coin = coins[coinAt] as BillGenerator.CoinSpec
    const after = level(i, coinAt)
    const previous = previousOfCoin(i, coinAt)
    const delta = after - (previous < 0 ? 0n : level(previous, coinAt))
    const choices = delta < 0n ? outflows : inflows
    const pool = choices.length > 0 ? choices : bizTypes
    const bizType = pool[hash(i, 5) % pool.length] as string
    const trade = BillGenerator.tradeBizTypes.has(bizType)
    const billId = (firstBillId + BigInt(i * 1000 + 1 + (hash(i, 6) % 997))).toString()
    const fees = trade ? fixed(BigInt(hash(i, 7) % 100_000), coin.decimals) : "0"
    const common = {
      deltaAmount: fixed(delta, coin.decimals),
      afterAmount: fixed(after, coin.decimals),
      fees,
      cTime: String(cTime(i))
    }
    if (account === "funding") {
      const bill: FundingWireBill = {
        billId,
        coinId: coin.coinId,
        coinName: coin.coinName,
        bizType,
        ...common,
        fillSize: null,
        fillValue: null
      }
      return bill as B
    }
    const bill: SpotWireBill = {
      billId,
      coinId: coin.coinId,
      coinName: coin.coinName,
      bizType,
      fillSize: trade ? fixed(delta < 0n ? -delta : delta, coin.decimals) : "0",
      fillValue: trade ? fixed(BigInt(1 + (hash(i, 8) % 100_000_000)), 2) : "0",
      ...common
    }
    return bill as B
  }

  /** First index whose cTime is >= t (> t when `strict`); bill i lies in [start + i*step, start + (i+1)*step). */
  const indexOf = (t: number, strict: boolean): number => {
    const guess = Math.min(Math.max(Math.floor((t - start) / step), 0), count)
    if (guess >= count) return count
    const time = cTime(guess)
    return time > t || (!strict && time === t) ? guess : guess + 1
  }

  const matches = (i: number, coinId: number | undefined, bizType: string | undefined): boolean =>
    (coinId === undefined || (coins[coinIndex(i)] as BillGenerator.CoinSpec).coinId === coinId) &&
    (bizType === undefined || at(i).bizType === bizType)

  const lazySlice = (
    query: BillBook.BillQuery,
    order: BillBook.Order,
    offset: number,
    limit: number
  ): BillBook.BillSlice<B> => {
    const inclusive = query.bounds === "inclusive"
    const lo = query.start === undefined ? 0 : indexOf(query.start, !inclusive)
    const hi = query.end === undefined ? count : indexOf(query.end, inclusive)
    const items: Array<B> = []
    const filtered = query.coinId !== undefined || query.bizType !== undefined
    if (!filtered) {
      if (order === "oldest-first") {
        for (let i = lo + offset; i < hi && items.length < limit; i++) items.push(at(i))
      } else {
        for (let i = hi - 1 - offset; i >= lo && items.length < limit; i--) items.push(at(i))
      }
      return { total: Math.max(hi - lo, 0), items }
    }
    let skip = offset
    const take = (i: number): boolean => {
      if (!matches(i, query.coinId, query.bizType)) return true
      if (skip > 0) {
        skip--
        return true
      }
      items.push(at(i))
      return items.length < limit
    }
    if (order === "oldest-first") {
      for (let i = lo; i < hi && take(i); i++);
    } else {
      for (let i = hi - 1; i >= lo && take(i); i--);
    }
    let total: number | undefined
    return {
      items,
      get total() {
        if (total === undefined) {
          total = 0
          for (let i = lo; i < hi; i++) if (matches(i, query.coinId, query.bizType)) total++
        }
        return total
      }
    }
  }

  const materialize = (): Array<B> => Array.from({ length: count }, (_, i) => at(i))

  // Turned into an eager book by the first insert.
  let eager: BillBook.BillBook<B> | undefined

  return {
    at,
    size: () => (eager === undefined ? count : eager.size()),
    all: () => (eager === undefined ? materialize() : eager.all()),
    last: () => (eager === undefined ? (count === 0 ? undefined : at(count - 1)) : eager.last()),
    insert: (bills) => {
      if (eager === undefined) eager = BillBook.make(materialize())
      eager.insert(bills)
    },
    slice: (query, order, offset, limit) =>
      eager === undefined ? lazySlice(query, order, offset, limit) : eager.slice(query, order, offset, limit),
    lastOfEachCoin: () => {
      if (eager !== undefined) {
        const last = new Map<number, B>()
        for (const bill of eager.all()) last.set(bill.coinId, bill)
        return [...last.values()]
      }
      const found = new Map<number, B>()
      for (let i = count - 1; i >= 0 && found.size < coins.length; i--) {
        const coin = coinIndex(i)
        if (!found.has(coin)) found.set(coin, at(i))
      }
      return [...found.values()].reverse()
    }
  }
}
