/**
 * Per-coin totals of an export: bills, net change and the balance at either end, in exact
 * decimal arithmetic.
 *
 * @since 0.1.0
 */
import type { AnyBill } from "./BillFormat.js"
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"

/**
 * Totals of one coin.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoinSummary {
  readonly coinName: string
  readonly bills: number
  readonly netChange: BigDecimal.BigDecimal
  /** Balance after the earliest bill, as the server wrote it. */
  readonly firstBalance: string
  /** Balance after the latest bill, as the server wrote it. */
  readonly lastBalance: string
}

interface Tally {
  coinName: string
  bills: number
  netChange: BigDecimal.BigDecimal
  first: AnyBill
  last: AnyBill
}

/** A coin's key: its id, or its name in the futures account, which has no coin ids. */
const coinKey = (bill: AnyBill): string => ("coinId" in bill ? `#${bill.coinId}` : bill.coinName)

/** The balance after a bill as the server wrote it: `afterAmount`, or the futures account's `balance`. */
const balanceText = (bill: AnyBill): string => String(bill.raw.afterAmount ?? bill.raw.balance)

/** Earlier in time; within one millisecond, the lower bill id (ids are digit strings). */
const before = (a: AnyBill, b: AnyBill): boolean => {
  const ta = DateTime.toEpochMillis(a.cTime)
  const tb = DateTime.toEpochMillis(b.cTime)
  if (ta !== tb) return ta < tb
  return a.billId.length !== b.billId.length ? a.billId.length < b.billId.length : a.billId < b.billId
}

/**
 * Accumulates bills in any order and reports per coin.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeCoinTally = () => {
  const coins = new Map<string, Tally>()
  const add = (bills: ReadonlyArray<AnyBill>): void => {
    for (const bill of bills) {
      const tally = coins.get(coinKey(bill))
      if (tally === undefined) {
        coins.set(coinKey(bill), {
          coinName: bill.coinName,
          bills: 1,
          netChange: bill.deltaAmount,
          first: bill,
          last: bill
        })
        continue
      }
      tally.bills += 1
      tally.netChange = BigDecimal.sum(tally.netChange, bill.deltaAmount)
      if (before(bill, tally.first)) tally.first = bill
      if (before(tally.last, bill)) tally.last = bill
    }
  }
  const summary = (): ReadonlyArray<CoinSummary> =>
    [...coins.values()]
      .map((tally) => ({
        coinName: tally.coinName,
        bills: tally.bills,
        netChange: BigDecimal.normalize(tally.netChange),
        firstBalance: balanceText(tally.first),
        lastBalance: balanceText(tally.last)
      }))
      .sort((a, b) => a.coinName.localeCompare(b.coinName))
  return { add, summary }
}

/**
 * A BigDecimal as plain digits, never in exponent notation.
 *
 * @since 0.1.0
 * @category utils
 */
export const plain = (value: BigDecimal.BigDecimal): string => {
  const normalized = BigDecimal.normalize(value)
  if (normalized.scale <= 0) return (normalized.value * 10n ** BigInt(-normalized.scale)).toString()
  const negative = normalized.value < 0n
  const digits = (negative ? -normalized.value : normalized.value).toString().padStart(normalized.scale + 1, "0")
  const point = digits.length - normalized.scale
  return `${negative ? "-" : ""}${digits.slice(0, point)}.${digits.slice(point)}`
}
