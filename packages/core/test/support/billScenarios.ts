/**
 * Wire bills with a controlled shape for the stream tests: how many, how crowded each
 * millisecond is, one optional crowded millisecond, and the bills a query should yield.
 */
import { spotBizTypes } from "../../src/index.js"
import {
  BillGenerator,
  compareWireBills,
  type FundingWireBill,
  Prng,
  type SpotWireBill,
  type WireBill
} from "../../src/testing/index.js"

export const epoch = Date.UTC(2025, 0, 1)

export interface Shape {
  readonly seed: number
  readonly count: number
  /** Bills per millisecond are drawn from 1..maxGroup, most often 1. */
  readonly maxGroup: number
  /** Largest gap between two used milliseconds. */
  readonly maxGap: number
  /** Extra bills at one millisecond, all of coin 1 and bizType trade_in. */
  readonly crowd?: { readonly size: number; readonly position: number } | undefined
}

const coins = [
  { coinId: 1, coinName: "USDT" },
  { coinId: 2, coinName: "BTC" },
  { coinId: 3, coinName: "ETH" },
  { coinId: 7, coinName: "WXT" }
] as const
const bizTypes = [...spotBizTypes, ...BillGenerator.unlistedBizTypes]

const spotBill = (billId: bigint, cTime: number, coin: (typeof coins)[number], bizType: string): SpotWireBill => ({
  billId: billId.toString(),
  coinId: coin.coinId,
  coinName: coin.coinName,
  bizType,
  fillSize: "0.5",
  fillValue: "1234.5678",
  deltaAmount: `-${billId % 1000n}.25`,
  afterAmount: `${billId % 100000n}.000001`,
  fees: "0.001",
  cTime: String(cTime)
})

/** Spot bills of `shape`, in canonical order. */
export const spotBills = (shape: Shape): Array<SpotWireBill> => {
  const prng = Prng.make(shape.seed)
  const bills: Array<SpotWireBill> = []
  let t = epoch
  let id = 736825748291061726n
  while (bills.length < shape.count) {
    t += prng.between(1, shape.maxGap)
    // Mostly single bills, sometimes a group up to maxGroup.
    const size = prng.next() < 0.6 ? 1 : prng.between(1, shape.maxGroup)
    for (let k = 0; k < size && bills.length < shape.count; k++) {
      id += BigInt(prng.between(1, 50))
      bills.push(spotBill(id, t, prng.pick(coins), prng.pick(bizTypes)))
    }
  }
  if (shape.crowd !== undefined) {
    const at = bills.length === 0 ? epoch : Number(bills[Math.floor(shape.crowd.position * (bills.length - 1))]?.cTime)
    for (let k = 0; k < shape.crowd.size; k++) {
      bills.push(spotBill(900000000000000000n + BigInt(k * 7), at, coins[0], "trade_in"))
    }
  }
  return bills.sort(compareWireBills)
}

/** Funding bills of `shape`: the spot shape with the funding record fields. */
export const fundingBills = (shape: Shape): Array<FundingWireBill> =>
  spotBills(shape).map((bill) => ({
    billId: bill.billId,
    coinId: bill.coinId,
    coinName: bill.coinName,
    bizType: bill.bizType,
    deltaAmount: bill.deltaAmount,
    afterAmount: bill.afterAmount,
    fees: bill.fees,
    cTime: bill.cTime,
    fillSize: null,
    fillValue: null
  }))

export interface Filter {
  readonly from?: number | undefined
  readonly to?: number | undefined
  readonly coinId?: number | undefined
  readonly bizType?: string | undefined
}

/** The bills `filter` selects: coin, bizType and the half-open window `[from, to)`. */
export const selected = <B extends WireBill>(bills: ReadonlyArray<B>, filter: Filter): Array<B> =>
  bills.filter(
    (bill) =>
      (filter.coinId === undefined || bill.coinId === filter.coinId) &&
      (filter.bizType === undefined || bill.bizType === filter.bizType) &&
      (filter.from === undefined || Number(bill.cTime) >= filter.from) &&
      (filter.to === undefined || Number(bill.cTime) < filter.to)
  )

/** Milliseconds holding at least `limit` of `bills`. */
export const crowdedMilliseconds = (bills: ReadonlyArray<WireBill>, limit = 100): Array<number> => {
  const counts = new Map<number, number>()
  for (const bill of bills) counts.set(Number(bill.cTime), (counts.get(Number(bill.cTime)) ?? 0) + 1)
  return [...counts].filter(([, n]) => n >= limit).map(([t]) => t)
}

/** A millisecond in `[from, to)` holding no bill, for a late booking; undefined if none is found. */
export const freeMillisecond = (bills: ReadonlyArray<WireBill>, prng: Prng.Prng, from: number, to: number) => {
  const used = new Set(bills.map((bill) => Number(bill.cTime)))
  for (let attempt = 0; attempt < 50 && to > from; attempt++) {
    const t = prng.between(from, to - 1)
    if (!used.has(t)) return t
  }
  return undefined
}

export const lateSpotBill = (n: number, cTime: number): SpotWireBill =>
  spotBill(950000000000000000n + BigInt(n), cTime, coins[1], "deposit")

export const lateFundingBill = (n: number, cTime: number): FundingWireBill => ({
  ...lateSpotBill(n, cTime),
  fillSize: null,
  fillValue: null
})

/** Sorts records the way the fake's canonical order does, for order-free comparisons. */
export const canonical = <B extends WireBill>(bills: ReadonlyArray<B>): Array<B> => [...bills].sort(compareWireBills)
