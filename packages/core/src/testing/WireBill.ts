/**
 * Bills exactly as the exchange sends them on the wire: plain objects of strings (and the
 * integer `coinId`), so the fake exchange can answer with bytes a real server would send and
 * tests can check what the client makes of them.
 *
 * @since 0.1.0
 */
import type { BillKind } from "../BillKind.js"

/**
 * The two accounts of the spot interface (funding and spot), whose records share one layout:
 * core's `BillKind` but the futures account, whose records are a `ContractWireBill`.
 *
 * @since 0.1.0
 * @category models
 */
export type Account = Exclude<BillKind, "contract">

/**
 * A funding bill as the server sends it. `deltaAmount` is already net of `fees`:
 * `afterAmount = previous afterAmount + deltaAmount`, and `fees` is informational.
 *
 * @since 0.1.0
 * @category models
 */
export interface FundingWireBill {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  /** Epoch milliseconds as a digit string. */
  readonly cTime: string
  readonly fillSize: null
  readonly fillValue: null
}

/**
 * A spot bill as the server sends it; same balance convention as {@link FundingWireBill}.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotWireBill {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: string
  readonly fillSize: string
  readonly fillValue: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  /** Epoch milliseconds as a digit string. */
  readonly cTime: string
}

/**
 * The wire record type of each account.
 *
 * @since 0.1.0
 * @category models
 */
export interface WireBillOf {
  readonly funding: FundingWireBill
  readonly spot: SpotWireBill
}

/**
 * Either kind of wire bill.
 *
 * @since 0.1.0
 * @category models
 */
export type WireBill = FundingWireBill | SpotWireBill

/**
 * Orders digit strings as the unbounded integers they denote (ids exceed 2^53, so no `Number`).
 *
 * @since 0.1.0
 * @category utils
 */
export const compareDigitStrings = (a: string, b: string): number =>
  a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0

/**
 * The fake exchange's canonical order: oldest first by `cTime`, ties by `billId`.
 *
 * @since 0.1.0
 * @category utils
 */
export const compareWireBills = (a: WireBill, b: WireBill): number =>
  compareDigitStrings(a.cTime, b.cTime) || compareDigitStrings(a.billId, b.billId)
