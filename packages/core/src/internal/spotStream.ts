/**
 * The spot page stream: the walk of {@link spotStep} over the exchange, its first page alone,
 * then the pages after it from a pool of walks over parts of the window ({@link spotPool}).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SpotBill } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import { maxPageSize } from "../Operation.js"
import { SpotBillsParams, type ValidSpotBillsParams } from "../Params.js"
import { type SpotBillsQuery, SpotCursor, type SpotPage } from "../Streams.js"
import { defaultBufferPages, defaultPiecePages, densityOf } from "./spotPlan.js"
import { spotPool } from "./spotPool.js"
import { type SpotRequest, spotRequest, spotStep } from "./spotWalk.js"
import { concurrencyOf, querySchema, sequential, startWalk, walk } from "./walk.js"

/** One spot call with parameters known to be valid. */
export type FetchSpot = (params: ValidSpotBillsParams) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>

const SpotQuery = querySchema({
  coinId: SpotBillsParams.from.fields.coinId,
  bizType: SpotBillsParams.from.fields.bizType
})

const start = Effect.fn("BillsApi.streamSpot.start")((query: SpotBillsQuery) =>
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

/**
 * The spot page stream over `fetch`: every bill of the query exactly once, in the server's
 * order, each page with the cursor to resume after it.
 */
export const spotPages =
  (fetch: FetchSpot) =>
  (query: SpotBillsQuery = {}): Stream.Stream<SpotPage, BillsError> => {
    /** One request for the walk `cursor` stands in, over the part of the window `request` asks for. */
    const fetchPage = Effect.fn("BillsApi.streamSpot.page")(function* (cursor: SpotCursor, request: SpotRequest) {
      yield* Effect.annotateCurrentSpan({ ...request })
      return yield* fetch({
        coinId: cursor.coinId,
        bizType: cursor.bizType,
        after: request.after,
        before: request.before,
        limit: maxPageSize
      })
    })

    const page = Effect.fnUntraced(function* (cursor: SpotCursor) {
      const request = spotRequest(cursor)
      const received = yield* fetchPage(cursor, request)
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

    /** Pages after the first from a pool of walks over parts of the window. */
    const pooled = (first: SpotPage, before: SpotCursor, concurrency: number): Stream.Stream<SpotPage, BillsError> => {
      const from = first.cursor
      const density = first.received === maxPageSize ? densityOf(before, from, first.received) : undefined
      return Stream.map(
        spotPool(
          from,
          density,
          { concurrency, limit: maxPageSize, piecePages: defaultPiecePages, bufferPages: defaultBufferPages },
          (request) => fetchPage(from, request)
        ),
        (pooledPage): SpotPage => {
          const requests = from.requests + pooledPage.requests
          return {
            bills: pooledPage.bills,
            received: pooledPage.received,
            requests,
            cursor: new SpotCursor(
              { ...from, ...(pooledPage.rest ?? {}), requests, done: pooledPage.rest === undefined },
              true
            )
          }
        }
      )
    }

    return Stream.unwrap(
      Effect.gen(function* () {
        const concurrency = yield* concurrencyOf("spotBills", query)
        const begin = yield* start(query)
        return walk(Effect.succeed(begin), page, (first) =>
          concurrency === 1 ? sequential(first.cursor, page) : pooled(first, begin, concurrency)
        )
      })
    )
  }
