/**
 * Streams over whole histories. A stream yields every bill that matches its query exactly
 * once, or fails with a `BillsError`; it never ends early without saying so. Requests are made
 * as the stream is pulled: taking a few bills costs one request.
 *
 * Windows are half-open, `[from, to)` in epoch milliseconds, so consecutive windows chain
 * without gaps or overlaps. `to` defaults to, and is capped at, the time the walk starts (read
 * from `Clock` once): a walk reads the history as it stood when it began, and bills created
 * while it runs are left to the next window.
 *
 * Bills come in the server's order, page after page: for spot bills that order is by creation
 * time (newest first or oldest first, whichever the exchange uses; the walk checks it), for
 * funding bills whatever order the exchange pages in.
 *
 * Every page of the page-level streams carries a cursor, a `Schema.Class` that can be encoded
 * (`Schema.encodeSync(SpotCursor)`) and stored. Passing it back as `cursor` continues the walk
 * exactly after that page: no bill lost, none repeated.
 *
 * @since 0.1.0
 */
import type * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import type { ContractBill, FundingBill, SpotBill } from "./Bill.js"
import type { BillsIncomplete } from "./Errors.js"
import { ContractBillsParams, FundingBillsParams, SpotBillsParams, type TimeInput } from "./Params.js"

/**
 * The fields both stream queries share: the window, the coin, and how many requests the walk
 * may have in flight.
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamQuery {
  /** First instant included. Default: the beginning of the history. */
  readonly from?: TimeInput | undefined
  /** First instant excluded. Default and upper limit: the time the walk starts. */
  readonly to?: TimeInput | undefined
  readonly coinId?: number | undefined
  /**
   * Requests the walk may have in flight at once. Default {@link defaultConcurrency}, which
   * reaches the rate limit at round trips up to several hundred ms; `1` walks one request after
   * the other. More than one request is made only once the consumer pulls past the first page.
   */
  readonly concurrency?: number | undefined
}

/**
 * What `streamFundingBills` / `streamFundingPages` list.
 *
 * @since 0.1.0
 * @category models
 */
export interface FundingBillsQuery extends StreamQuery {
  readonly bizType?: FundingBillsParams["bizType"]
  /**
   * Continue after the page this cursor came with. The other fields may be left out (they are
   * taken from the cursor); those given must match it.
   */
  readonly cursor?: FundingCursor | undefined
}

/**
 * What `streamSpotBills` / `streamSpotPages` list.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotBillsQuery extends StreamQuery {
  readonly bizType?: SpotBillsParams["bizType"]
  /**
   * Continue after the page this cursor came with. The other fields may be left out (they are
   * taken from the cursor); those given must match it.
   */
  readonly cursor?: SpotCursor | undefined
}

/**
 * What `streamContractBills` / `streamContractPages` list: the futures account's bills of the
 * window, optionally of one asset, contract or incomeType. The window may be as long as the
 * history: the walk asks in slices of at most 100 days, the widest the interface accepts.
 *
 * @since 0.2.0
 * @category models
 */
export interface ContractBillsQuery extends Omit<StreamQuery, "coinId"> {
  readonly asset?: ContractBillsParams["asset"]
  readonly symbol?: ContractBillsParams["symbol"]
  readonly incomeType?: ContractBillsParams["incomeType"]
  /**
   * Continue after the page this cursor came with. The other fields may be left out (they are
   * taken from the cursor); those given must match it.
   */
  readonly cursor?: ContractCursor | undefined
}

/**
 * Requests a stream has in flight at once unless its query says otherwise. Nine: the first
 * request goes alone (laziness), so nine more fill the exchange's window of 10 a round trip
 * after it, wherever the exchange is; the reorder buffer then holds at most 17,000 spot bills.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultConcurrency = 9

const Millis = Schema.NonNegativeInt

/**
 * Where a funding walk stands after a page: its query, its pinned end and the page to read
 * next. Pass it back as `cursor` to continue exactly there.
 *
 * @since 0.1.0
 * @category schemas
 */
export class FundingCursor extends Schema.Class<FundingCursor>("@account-bills/core/FundingCursor")({
  coinId: FundingBillsParams.from.fields.coinId,
  bizType: FundingBillsParams.from.fields.bizType,
  /** The query's `from`, epoch ms. */
  from: Schema.optional(Millis),
  /** The query's `to`, epoch ms, as given. */
  to: Schema.optional(Millis),
  /** The end of the window the walk reads, pinned when it started (exclusive). */
  end: Millis,
  pageIndex: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  /** Ids of the last page read, which the next page may repeat. */
  previousPageBillIds: Schema.Array(Schema.String),
  /** The total the last page reported. */
  total: Schema.optional(Schema.NonNegativeInt),
  /** The order the pages list bills in, once a page showed it. */
  order: Schema.optional(Schema.Literal("newest-first", "oldest-first")),
  /** The end of the part of the window being paged, when `maxWidth` cuts the window into parts. */
  windowEnd: Schema.optional(Millis),
  /**
   * First millisecond the exchange serves, once a refusal showed it serves no further back
   * (its history horizon): the walk reads from here, whatever `from` says.
   */
  servedFrom: Schema.optional(Millis),
  /** Widest window the exchange accepted after refusing a wider one: requests span no more. */
  maxWidth: Schema.optional(Millis),
  /** Requests the walk has made so far. */
  requests: Schema.NonNegativeInt,
  /** Nothing is left to read. */
  done: Schema.Boolean
}) {}

/**
 * Where a spot walk stands after a page: its query, its pinned end, the part of the window
 * still to read, and what the walk has learned about the exchange (order, bounds). Pass it
 * back as `cursor` to continue exactly there.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SpotCursor extends Schema.Class<SpotCursor>("@account-bills/core/SpotCursor")({
  coinId: SpotBillsParams.from.fields.coinId,
  bizType: SpotBillsParams.from.fields.bizType,
  /** The query's `from`, epoch ms. */
  from: Schema.optional(Millis),
  /** The query's `to`, epoch ms, as given. */
  to: Schema.optional(Millis),
  /** The end of the window the walk reads, pinned when it started (exclusive). */
  end: Millis,
  /** First millisecond still to read. */
  lo: Millis,
  /** Last millisecond still to read (inclusive). */
  hi: Schema.Int,
  /** The exchange has shown that `after` includes bills at exactly that time. */
  inclusiveAfter: Schema.Boolean,
  /** The exchange has shown that `before` includes bills at exactly that time. */
  inclusiveBefore: Schema.Boolean,
  order: Schema.Literal("unknown", "newest-first", "oldest-first"),
  /** The millisecond at the edge of the window, whose bills may come again. */
  edgeMillisecond: Schema.optional(Schema.Int),
  /** Ids already emitted at `edgeMillisecond`. */
  edgeBillIds: Schema.Array(Schema.String),
  /**
   * First millisecond the exchange serves, once a refusal showed it serves no further back
   * (its history horizon): the walk reads from here, whatever `from` says.
   */
  servedFrom: Schema.optional(Millis),
  /** Widest window the exchange accepted after refusing a wider one: requests span no more. */
  maxWidth: Schema.optional(Millis),
  /** Requests the walk has made so far. */
  requests: Schema.NonNegativeInt,
  /** Nothing is left to read. */
  done: Schema.Boolean
}) {}

/**
 * Where a contract walk stands after a page: the spot walk's state (the contract operation is
 * the same shape: time bounds and a limit) with the contract's filters. Pass it back as
 * `cursor` to continue exactly there.
 *
 * @since 0.2.0
 * @category schemas
 */
export class ContractCursor extends Schema.Class<ContractCursor>("@account-bills/core/ContractCursor")({
  ...Struct.omit(SpotCursor.fields, "coinId", "bizType"),
  asset: ContractBillsParams.from.fields.asset,
  symbol: ContractBillsParams.from.fields.symbol,
  incomeType: ContractBillsParams.from.fields.incomeType
}) {}

/**
 * One request of a contract walk.
 *
 * @since 0.2.0
 * @category models
 */
export interface ContractPage {
  /** The bills of this response not emitted before, in the server's order. */
  readonly bills: ReadonlyArray<ContractBill>
  /** Records in the response, repeats and bills outside the window included. */
  readonly received: number
  /** Requests of this walk so far, this one included (counted across resumes). */
  readonly requests: number
  /** Continue from here: no bill of this page or before comes again. */
  readonly cursor: ContractCursor
  /**
   * The earliest time the exchange serves, on every page after the walk clipped its window to
   * the exchange's history horizon; bills before it are not in the stream.
   */
  readonly servedFrom?: DateTime.Utc | undefined
}

/**
 * One request of a funding walk.
 *
 * @since 0.1.0
 * @category models
 */
export interface FundingPage {
  /** The bills of this page not emitted before, in the server's order. */
  readonly bills: ReadonlyArray<FundingBill>
  readonly pageIndex: number
  /** The total the page reported (over the widened window). */
  readonly total: number
  /** Records in the response, repeats and bills outside the window included. */
  readonly received: number
  /** Requests of this walk so far, this one included (counted across resumes). */
  readonly requests: number
  /** Continue from here: no bill of this page or before comes again. */
  readonly cursor: FundingCursor
  /**
   * Set on a page whose fields disagree (the last by `hasNextPage`, short of its `total`): its
   * bills are delivered, then the stream fails with this. Its cursor reads the page again.
   */
  readonly incomplete?: BillsIncomplete | undefined
  /**
   * The earliest time the exchange serves, on every page after the walk clipped its window to
   * the exchange's history horizon; bills before it are not in the stream.
   */
  readonly servedFrom?: DateTime.Utc | undefined
}

/**
 * One request of a spot walk.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotPage {
  /** The bills of this response not emitted before, in the server's order. */
  readonly bills: ReadonlyArray<SpotBill>
  /** Records in the response, repeats and bills outside the window included. */
  readonly received: number
  /** Requests of this walk so far, this one included (counted across resumes). */
  readonly requests: number
  /** Continue from here: no bill of this page or before comes again. */
  readonly cursor: SpotCursor
  /**
   * The earliest time the exchange serves, on every page after the walk clipped its window to
   * the exchange's history horizon; bills before it are not in the stream.
   */
  readonly servedFrom?: DateTime.Utc | undefined
}
