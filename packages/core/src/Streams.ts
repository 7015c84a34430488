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
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { FundingBill, FundingBillsPage, SpotBill } from "./Bill.js"
import * as BillsMetrics from "./BillsMetrics.js"
import { type BillsError, InvalidParams } from "./Errors.js"
import { type FundingWalkState, fundingRequest, fundingStep } from "./internal/fundingWalk.js"
import { defaultBufferPages, defaultPiecePages, densityOf, spotPool } from "./internal/spotPool.js"
import { type SpotRequest, spotRequest, spotStep } from "./internal/spotWalk.js"
import { validate } from "./internal/validate.js"
import { startNotAfterEnd } from "./internal/windowOrder.js"
import { maxPageSize, type OperationName } from "./Operation.js"
import {
  FundingBillsParams,
  SpotBillsParams,
  TimeBound,
  type TimeInput,
  type ValidFundingBillsParams,
  type ValidSpotBillsParams
} from "./Params.js"

/**
 * What `streamFundingBills` / `streamFundingPages` list.
 *
 * @since 0.1.0
 * @category models
 */
export interface FundingBillsQuery {
  /** First instant included. Default: the beginning of the history. */
  readonly from?: TimeInput | undefined
  /** First instant excluded. Default and upper limit: the time the walk starts. */
  readonly to?: TimeInput | undefined
  readonly coinId?: number | undefined
  readonly bizType?: FundingBillsParams["bizType"]
  /**
   * Continue after the page this cursor came with. The other fields may be left out (they are
   * taken from the cursor); those given must match it.
   */
  readonly cursor?: FundingCursor | undefined
  /**
   * Requests the walk may have in flight at once. Default {@link defaultConcurrency}, which
   * reaches the rate limit at round trips up to several hundred ms; `1` walks one request after
   * the other. More than one request is made only once the consumer pulls past the first page.
   */
  readonly concurrency?: number | undefined
}

/**
 * What `streamSpotBills` / `streamSpotPages` list.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotBillsQuery {
  /** First instant included. Default: the beginning of the history. */
  readonly from?: TimeInput | undefined
  /** First instant excluded. Default and upper limit: the time the walk starts. */
  readonly to?: TimeInput | undefined
  readonly coinId?: number | undefined
  readonly bizType?: SpotBillsParams["bizType"]
  /**
   * Continue after the page this cursor came with. The other fields may be left out (they are
   * taken from the cursor); those given must match it.
   */
  readonly cursor?: SpotCursor | undefined
  /**
   * Requests the walk may have in flight at once. Default {@link defaultConcurrency}, which
   * reaches the rate limit at round trips up to several hundred ms; `1` walks one request after
   * the other. More than one request is made only once the consumer pulls past the first page.
   */
  readonly concurrency?: number | undefined
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

const Concurrency = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(64))

const concurrencyOf = (operation: OperationName, query: { readonly concurrency?: number | undefined }) =>
  query.concurrency === undefined
    ? Effect.succeed(defaultConcurrency)
    : validate(operation, Schema.Struct({ concurrency: Concurrency }), { concurrency: query.concurrency }).pipe(
        Effect.map((valid) => valid.concurrency)
      )

const windowRule = (query: { readonly from?: number | undefined; readonly to?: number | undefined }) =>
  startNotAfterEnd("from", "to", query.from, query.to)

const FundingQuery = Schema.Struct({
  from: Schema.optional(TimeBound),
  to: Schema.optional(TimeBound),
  coinId: FundingBillsParams.from.fields.coinId,
  bizType: FundingBillsParams.from.fields.bizType
}).pipe(Schema.filter(windowRule))

const SpotQuery = Schema.Struct({
  from: Schema.optional(TimeBound),
  to: Schema.optional(TimeBound),
  coinId: SpotBillsParams.from.fields.coinId,
  bizType: SpotBillsParams.from.fields.bizType
}).pipe(Schema.filter(windowRule))

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
  /** Requests the walk has made so far. */
  requests: Schema.NonNegativeInt,
  /** Nothing is left to read. */
  done: Schema.Boolean
}) {}

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
}

interface QueryFields {
  readonly from?: number | undefined
  readonly to?: number | undefined
  readonly coinId?: number | undefined
  readonly bizType?: string | undefined
}

/** Fields given beside a cursor must be the cursor's own, or the walk would answer another query. */
const checkResume = (operation: OperationName, cursor: QueryFields, given: QueryFields) => {
  for (const field of ["from", "to", "coinId", "bizType"] as const) {
    const value = given[field]
    if (value !== undefined && value !== cursor[field]) {
      return Effect.fail(
        new InvalidParams({
          operation,
          field: "cursor",
          rule: `the cursor belongs to a query with ${field} ${cursor[field] ?? "unset"}, not ${value}`
        })
      )
    }
  }
  return Effect.void
}

/**
 * Where a walk starts: the query checked, then its cursor (which must belong to it) or a fresh
 * cursor from `fresh`, given the query and the end pinned to the clock now.
 */
const startWalk = <Q extends QueryFields, I, C extends QueryFields>(
  operation: OperationName,
  schema: Schema.Schema<Q, I>,
  query: I & { readonly cursor?: C | undefined },
  fresh: (valid: Q, end: number) => C
): Effect.Effect<C, InvalidParams> =>
  Effect.gen(function* () {
    // The schema keeps the query's own fields and drops `cursor`.
    const valid = yield* validate(operation, schema, query)
    if (query.cursor !== undefined) {
      yield* checkResume(operation, query.cursor, valid)
      return query.cursor
    }
    const now = yield* Clock.currentTimeMillis
    return fresh(valid, Math.min(valid.to ?? now, now))
  })

/** Pages from `first` on, each fetched only when the stream is pulled. */
const sequential = <C extends { readonly done: boolean }, P extends { readonly cursor: C }>(
  start: C,
  page: (cursor: C) => Effect.Effect<P, BillsError>
): Stream.Stream<P, BillsError> =>
  start.done
    ? Stream.empty
    : Stream.paginateEffect(start, (cursor) =>
        Effect.map(page(cursor), (p) => [p, p.cursor.done ? Option.none() : Option.some(p.cursor)] as const)
      )

/**
 * The first page alone, fetched when the stream is first pulled, then `rest` after it, started
 * only when the consumer pulls past the first page: taking a few bills costs one request.
 */
const walk = <C extends { readonly done: boolean }, P extends { readonly cursor: C }>(
  first: Effect.Effect<C, BillsError>,
  page: (cursor: C) => Effect.Effect<P, BillsError>,
  rest: (page: P) => Stream.Stream<P, BillsError>
): Stream.Stream<P, BillsError> =>
  Stream.unwrap(
    Effect.map(first, (start) =>
      start.done
        ? Stream.empty
        : Stream.flatMap(Stream.fromEffect(page(start)), (p) =>
            Stream.concat(Stream.succeed(p), p.cursor.done ? Stream.empty : Stream.suspend(() => rest(p)))
          )
    )
  )

const countBills =
  (operation: OperationName) =>
  (page: { readonly bills: ReadonlyArray<unknown> }): Effect.Effect<void> =>
    Metric.incrementBy(BillsMetrics.forOperation(BillsMetrics.bills, operation), page.bills.length)

/**
 * Builds the four streams from the two operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeStreams = (operations: {
  /** One funding call with parameters known to be valid. */
  readonly fetchFunding: (params: ValidFundingBillsParams) => Effect.Effect<FundingBillsPage, BillsError>
  /** One spot call with parameters known to be valid. */
  readonly fetchSpot: (params: ValidSpotBillsParams) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>
}) => {
  const startFunding = Effect.fn("BillsApi.streamFunding.start")((query: FundingBillsQuery) =>
    startWalk(
      "fundingBills",
      FundingQuery,
      query,
      (valid, end) =>
        new FundingCursor({
          ...valid,
          end,
          pageIndex: 1,
          previousPageBillIds: [],
          requests: 0,
          done: (valid.from ?? 0) >= end
        })
    )
  )

  const fundingState = (cursor: FundingCursor): FundingWalkState => ({
    from: cursor.from ?? 0,
    end: cursor.end,
    pageIndex: cursor.pageIndex,
    previousPageBillIds: cursor.previousPageBillIds,
    total: cursor.total
  })

  /** Page `pageIndex` of the walk `cursor` stands in; the request does not depend on the pages before. */
  const fetchFundingPage = Effect.fn("BillsApi.streamFunding.page")(function* (
    cursor: FundingCursor,
    pageIndex: number
  ) {
    const { endTime, startTime } = fundingRequest(fundingState(cursor))
    yield* Effect.annotateCurrentSpan({ pageIndex, startTime, endTime })
    return yield* operations.fetchFunding({
      coinId: cursor.coinId,
      bizType: cursor.bizType,
      startTime,
      endTime,
      pageIndex,
      pageSize: maxPageSize
    })
  })

  const fundingPage = (cursor: FundingCursor) =>
    Effect.flatMap(fetchFundingPage(cursor, cursor.pageIndex), (page) => applyFundingPage(cursor, page))

  /**
   * Funding pages after the first, `concurrency` fetched ahead: every request is known from the
   * page number, and the pages that exist are known from the last total, so pages are fetched
   * ahead and stepped through in order. A page that fails fails the stream when its turn comes.
   * At most `concurrency` pages (`concurrency × 100` bills) are held ahead of the consumer.
   */
  const fundingAhead = (start: FundingCursor, concurrency: number): Stream.Stream<FundingPage, BillsError> =>
    Stream.unwrapScoped(
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const inFlight = new Map<number, Fiber.Fiber<FundingBillsPage, BillsError>>()
        const fetchAhead = (cursor: FundingCursor) =>
          Effect.gen(function* () {
            const known = Math.ceil((cursor.total ?? 0) / maxPageSize)
            const last = Math.max(cursor.pageIndex, Math.min(known, cursor.pageIndex + concurrency - 1))
            for (let i = cursor.pageIndex; i <= last; i++) {
              if (!inFlight.has(i)) inFlight.set(i, yield* Effect.forkIn(fetchFundingPage(cursor, i), scope))
            }
          })
        return Stream.paginateEffect(start, (cursor) =>
          Effect.gen(function* () {
            yield* fetchAhead(cursor)
            const fiber = inFlight.get(cursor.pageIndex) as Fiber.Fiber<FundingBillsPage, BillsError>
            inFlight.delete(cursor.pageIndex)
            // A page fetched ahead may be older than the page before it: when bills were booked in
            // between, the two do not fit (the total fell). Fetched again now, it is newer, as in
            // a walk one page at a time; only if it still does not fit does the walk fail.
            const page = yield* Effect.flatMap(Fiber.join(fiber), (ahead) => applyFundingPage(cursor, ahead)).pipe(
              Effect.catchTag("BillsIncomplete", () => fundingPage(cursor))
            )
            return [page, page.cursor.done ? Option.none() : Option.some(page.cursor)] as const
          })
        )
      })
    )

  const applyFundingPage = Effect.fnUntraced(function* (cursor: FundingCursor, page: FundingBillsPage) {
    const { bills, next } = yield* fundingStep(fundingState(cursor), page, maxPageSize)
    const requests = cursor.requests + 1
    return {
      bills,
      pageIndex: cursor.pageIndex,
      total: page.total,
      received: page.items.length,
      requests,
      // Built from a checked cursor and the walk's own numbers: no need to check it again.
      cursor: new FundingCursor(
        {
          ...cursor,
          requests,
          ...(next === undefined
            ? { done: true }
            : { pageIndex: next.pageIndex, previousPageBillIds: next.previousPageBillIds, total: next.total })
        },
        true
      )
    } satisfies FundingPage
  })

  const startSpot = Effect.fn("BillsApi.streamSpot.start")((query: SpotBillsQuery) =>
    startWalk("spotBills", SpotQuery, query, (valid, end) => {
      const lo = valid.from ?? 0
      return new SpotCursor({
        ...valid,
        end,
        lo,
        hi: end - 1,
        inclusiveAfter: false,
        inclusiveBefore: false,
        order: "unknown",
        edgeBillIds: [],
        requests: 0,
        done: lo >= end
      })
    })
  )

  /** One spot request for the walk `cursor` stands in, over the part of the window `request` asks for. */
  const fetchSpotPage = Effect.fn("BillsApi.streamSpot.page")(function* (cursor: SpotCursor, request: SpotRequest) {
    yield* Effect.annotateCurrentSpan({ ...request })
    return yield* operations.fetchSpot({
      coinId: cursor.coinId,
      bizType: cursor.bizType,
      after: request.after,
      before: request.before,
      limit: maxPageSize
    })
  })

  const spotPage = Effect.fnUntraced(function* (cursor: SpotCursor) {
    const request = spotRequest(cursor)
    const received = yield* fetchSpotPage(cursor, request)
    const { bills, next } = yield* spotStep(cursor, request, received, maxPageSize)
    const requests = cursor.requests + 1
    return {
      bills,
      received: received.length,
      requests,
      // Built from a checked cursor and the walk's own numbers: no need to check it again.
      cursor: new SpotCursor({ ...cursor, requests, ...(next === undefined ? { done: true } : next) }, true)
    } satisfies SpotPage
  })

  /** Spot pages after the first from a pool of walks over parts of the window (internal/spotPool.ts). */
  const spotAhead = (first: SpotPage, before: SpotCursor, concurrency: number): Stream.Stream<SpotPage, BillsError> => {
    const start = first.cursor
    const density = first.received === maxPageSize ? densityOf(before, start, first.received) : undefined
    return Stream.map(
      spotPool(
        start,
        density,
        { concurrency, limit: maxPageSize, piecePages: defaultPiecePages, bufferPages: defaultBufferPages },
        (request) => fetchSpotPage(start, request)
      ),
      (pooled): SpotPage => {
        const requests = start.requests + pooled.requests
        return {
          bills: pooled.bills,
          received: pooled.received,
          requests,
          cursor: new SpotCursor({ ...start, ...(pooled.rest ?? {}), requests, done: pooled.rest === undefined }, true)
        }
      }
    )
  }

  const streamFundingPages = (query: FundingBillsQuery = {}): Stream.Stream<FundingPage, BillsError> =>
    Stream.unwrap(
      Effect.map(concurrencyOf("fundingBills", query), (concurrency) =>
        walk(startFunding(query), fundingPage, (first) =>
          concurrency === 1 ? sequential(first.cursor, fundingPage) : fundingAhead(first.cursor, concurrency)
        )
      )
    )
  const streamSpotPages = (query: SpotBillsQuery = {}): Stream.Stream<SpotPage, BillsError> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const concurrency = yield* concurrencyOf("spotBills", query)
        const start = yield* startSpot(query)
        return walk(Effect.succeed(start), spotPage, (first) =>
          concurrency === 1 ? sequential(first.cursor, spotPage) : spotAhead(first, start, concurrency)
        )
      })
    )

  return {
    streamFundingPages,
    streamSpotPages,
    streamFundingBills: (query?: FundingBillsQuery): Stream.Stream<FundingBill, BillsError> =>
      Stream.mapConcat(Stream.tap(streamFundingPages(query), countBills("fundingBills")), (page) => page.bills),
    streamSpotBills: (query?: SpotBillsQuery): Stream.Stream<SpotBill, BillsError> =>
      Stream.mapConcat(Stream.tap(streamSpotPages(query), countBills("spotBills")), (page) => page.bills)
  }
}
