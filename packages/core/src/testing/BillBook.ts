/**
 * The bills of one account, kept in the canonical (cTime, billId) order so that a query costs a
 * binary search plus the page it returns, even over a million bills. Filtered views (by coinId,
 * bizType, and for contract bills asset and symbol) are built on first use and kept up to date by
 * appends at the end.
 *
 * @since 0.1.0
 */
import type { ListOrder } from "../ListOrder.js"
import { type BookBill, compareWireBills } from "./WireBill.js"

/**
 * Which way records come back: the interface does not say, so the fake can do either.
 *
 * @since 0.1.0
 * @category models
 */
export type Order = ListOrder

/**
 * Whether the start and end time bounds include bills created exactly at them.
 *
 * @since 0.1.0
 * @category models
 */
export type Bounds = "inclusive" | "exclusive"

/**
 * A filter and time window over one account's bills.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillQuery {
  readonly coinId?: number | undefined
  readonly bizType?: string | undefined
  /** The asset, for contract bills (since 0.2.0). */
  readonly coinName?: string | undefined
  /** The contract, for contract bills (since 0.2.0). */
  readonly symbol?: string | undefined
  /** Epoch ms. */
  readonly start?: number | undefined
  /** Epoch ms. */
  readonly end?: number | undefined
  readonly bounds: Bounds
}

/**
 * A slice of the matching bills and how many match in all.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillSlice<B> {
  readonly total: number
  readonly items: ReadonlyArray<B>
}

/**
 * A mutable, sorted store of one account's bills.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillBook<B extends BookBill> {
  readonly size: () => number
  /** All bills, oldest first; do not mutate. */
  readonly all: () => ReadonlyArray<B>
  readonly last: () => B | undefined
  /** Inserts bills at their place in the canonical order (cheap when they come last). */
  readonly insert: (bills: ReadonlyArray<B>) => void
  /** Skips `offset` matching bills in `order` and returns up to `count` of the rest. */
  readonly slice: (query: BillQuery, order: Order, offset: number, count: number) => BillSlice<B>
}

interface View<B> {
  readonly bills: Array<B>
  readonly times: Array<number>
}

/** First index whose time is >= t (or > t when `strict`). */
const bound = (times: ReadonlyArray<number>, t: number, strict: boolean): number => {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const x = times[mid] as number
    if (x < t || (strict && x === t)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The filters of a view: what a query selects besides its window. */
type Filter = Pick<BillQuery, "coinId" | "bizType" | "coinName" | "symbol">

const viewKey = (filter: Filter): string =>
  JSON.stringify([filter.coinId ?? null, filter.bizType ?? null, filter.coinName ?? null, filter.symbol ?? null])

const unfiltered = viewKey({})

/**
 * Creates a book; `initial` may be in any order.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <B extends BookBill>(initial: ReadonlyArray<B>): BillBook<B> => {
  const sorted = isSorted(initial) ? initial.slice() : initial.slice().sort(compareWireBills)
  const base: View<B> = { bills: sorted, times: sorted.map((b) => Number(b.cTime)) }
  const views = new Map<string, { readonly filter: Filter; readonly view: View<B> }>()
  views.set(unfiltered, { filter: {}, view: base })

  const matches = (bill: B, filter: Filter): boolean =>
    (filter.coinId === undefined || bill.coinId === filter.coinId) &&
    (filter.bizType === undefined || bill.bizType === filter.bizType) &&
    (filter.coinName === undefined || bill.coinName === filter.coinName) &&
    (filter.symbol === undefined || bill.symbol === filter.symbol)

  const viewOf = (query: Filter): View<B> => {
    const filter: Filter = {
      coinId: query.coinId,
      bizType: query.bizType,
      coinName: query.coinName,
      symbol: query.symbol
    }
    const key = viewKey(filter)
    const cached = views.get(key)
    if (cached !== undefined) return cached.view
    const bills = base.bills.filter((b) => matches(b, filter))
    const view: View<B> = { bills, times: bills.map((b) => Number(b.cTime)) }
    views.set(key, { filter, view })
    return view
  }

  const insert = (bills: ReadonlyArray<B>): void => {
    for (const bill of bills) {
      const time = Number(bill.cTime)
      const last = base.bills[base.bills.length - 1]
      if (last === undefined || compareWireBills(last, bill) <= 0) {
        for (const { filter, view } of views.values()) {
          if (matches(bill, filter)) {
            view.bills.push(bill)
            view.times.push(time)
          }
        }
        continue
      }
      // Out of order: rare (hand-made appends), so rebuild the filtered views lazily.
      let at = bound(base.times, time, true)
      while (at > 0 && compareWireBills(base.bills[at - 1] as B, bill) > 0) at--
      base.bills.splice(at, 0, bill)
      base.times.splice(at, 0, time)
      for (const key of [...views.keys()]) if (key !== unfiltered) views.delete(key)
    }
  }

  const slice = (query: BillQuery, order: Order, offset: number, count: number): BillSlice<B> => {
    const view = viewOf(query)
    const inclusive = query.bounds === "inclusive"
    const lo = query.start === undefined ? 0 : bound(view.times, query.start, !inclusive)
    const hi = query.end === undefined ? view.times.length : bound(view.times, query.end, inclusive)
    const total = Math.max(hi - lo, 0)
    const items: Array<B> = []
    if (order === "oldest-first") {
      for (let i = lo + offset; i < hi && items.length < count; i++) items.push(view.bills[i] as B)
    } else {
      for (let i = hi - 1 - offset; i >= lo && items.length < count; i--) items.push(view.bills[i] as B)
    }
    return { total, items }
  }

  return {
    size: () => base.bills.length,
    all: () => base.bills,
    last: () => base.bills[base.bills.length - 1],
    insert,
    slice
  }
}

const isSorted = (bills: ReadonlyArray<BookBill>): boolean => {
  for (let i = 1; i < bills.length; i++) {
    if (compareWireBills(bills[i - 1] as BookBill, bills[i] as BookBill) > 0) return false
  }
  return true
}
