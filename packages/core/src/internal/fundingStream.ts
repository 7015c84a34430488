/**
 * The funding page stream: the walk of {@link fundingStep} over the exchange, its first page
 * alone, then the pages after it read ahead (every request is known from its page number).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { FundingBillsPage } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import { maxPageSize } from "../Operation.js"
import { FundingBillsParams, type ValidFundingBillsParams } from "../Params.js"
import { FundingCursor, type FundingBillsQuery, type FundingPage } from "../Streams.js"
import { type FundingWalkState, fundingRequest, fundingStep } from "./fundingWalk.js"
import { concurrencyOf, querySchema, sequential, startWalk, walk } from "./walk.js"

/** One funding call with parameters known to be valid. */
export type FetchFunding = (params: ValidFundingBillsParams) => Effect.Effect<FundingBillsPage, BillsError>

const FundingQuery = querySchema({
  coinId: FundingBillsParams.from.fields.coinId,
  bizType: FundingBillsParams.from.fields.bizType
})

const start = Effect.fn("BillsApi.streamFunding.start")((query: FundingBillsQuery) =>
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

const stateOf = (cursor: FundingCursor): FundingWalkState => ({
  from: cursor.from ?? 0,
  end: cursor.end,
  pageIndex: cursor.pageIndex,
  previousPageBillIds: cursor.previousPageBillIds,
  total: cursor.total
})

const applyPage = Effect.fnUntraced(function* (cursor: FundingCursor, page: FundingBillsPage) {
  const { bills, next } = yield* fundingStep(stateOf(cursor), page, maxPageSize)
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

/**
 * The funding page stream over `fetch`: every bill of the query exactly once, page by page,
 * each page with the cursor to resume after it.
 */
export const fundingPages =
  (fetch: FetchFunding) =>
  (query: FundingBillsQuery = {}): Stream.Stream<FundingPage, BillsError> => {
    /** Page `pageIndex` of the walk `cursor` stands in; the request does not depend on the pages before. */
    const fetchPage = Effect.fn("BillsApi.streamFunding.page")(function* (cursor: FundingCursor, pageIndex: number) {
      const { endTime, startTime } = fundingRequest(stateOf(cursor))
      yield* Effect.annotateCurrentSpan({ pageIndex, startTime, endTime })
      return yield* fetch({
        coinId: cursor.coinId,
        bizType: cursor.bizType,
        startTime,
        endTime,
        pageIndex,
        pageSize: maxPageSize
      })
    })

    const page = (cursor: FundingCursor) =>
      Effect.flatMap(fetchPage(cursor, cursor.pageIndex), (fetched) => applyPage(cursor, fetched))

    /**
     * Pages after the first, `concurrency` fetched ahead: every request is known from the page
     * number, and the pages that exist are known from the last total, so pages are fetched ahead
     * and stepped through in order. A page that fails fails the stream when its turn comes. At
     * most `concurrency` pages (`concurrency × 100` bills) are held ahead of the consumer.
     */
    const ahead = (first: FundingCursor, concurrency: number): Stream.Stream<FundingPage, BillsError> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const scope = yield* Effect.scope
          const inFlight = new Map<number, Fiber.Fiber<FundingBillsPage, BillsError>>()
          const fetchAhead = (cursor: FundingCursor) =>
            Effect.gen(function* () {
              const known = Math.ceil((cursor.total ?? 0) / maxPageSize)
              const last = Math.max(cursor.pageIndex, Math.min(known, cursor.pageIndex + concurrency - 1))
              for (let i = cursor.pageIndex; i <= last; i++) {
                if (!inFlight.has(i)) inFlight.set(i, yield* Effect.forkIn(fetchPage(cursor, i), scope))
              }
            })
          return Stream.paginateEffect(first, (cursor) =>
            Effect.gen(function* () {
              yield* fetchAhead(cursor)
              const fiber = inFlight.get(cursor.pageIndex) as Fiber.Fiber<FundingBillsPage, BillsError>
              inFlight.delete(cursor.pageIndex)
              // A page fetched ahead may be older than the page before it: when bills were booked in
              // between, the two do not fit (the total fell). Fetched again now, it is newer, as in
              // a walk one page at a time; only if it still does not fit does the walk fail.
              const next = yield* Effect.flatMap(Fiber.join(fiber), (fetched) => applyPage(cursor, fetched)).pipe(
                Effect.catchTag("BillsIncomplete", () => page(cursor))
              )
              return [next, next.cursor.done ? Option.none() : Option.some(next.cursor)] as const
            })
          )
        })
      )

    return Stream.unwrap(
      Effect.map(concurrencyOf("fundingBills", query), (concurrency) =>
        walk(start(query), page, (first) =>
          concurrency === 1 ? sequential(first.cursor, page) : ahead(first.cursor, concurrency)
        )
      )
    )
  }
