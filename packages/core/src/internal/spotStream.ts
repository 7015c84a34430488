/**
 * The page stream of an operation walked by time window (spot, and contract, which takes the
 * same time bounds and limit): the walk of {@link spotStep} over the exchange, its first page
 * alone, then the pages after it from a pool of walks over parts of the window ({@link spotPool}).
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import type { SpotBill } from "../Bill.js"
import type { BillsError, InvalidParams } from "../Errors.js"
import { maxPageSize } from "../Operation.js"
import { SpotBillsParams, type ValidSpotBillsParams } from "../Params.js"
import { type SpotBillsQuery, SpotCursor, type SpotPage } from "../Streams.js"
import { defaultBufferPages, defaultPiecePages, openingDensity } from "./spotPlan.js"
import {
  probeBy,
  type HistoryRule,
  isHistoryLimit,
  makeRuleCell,
  maxRelearns,
  type RuleCell,
  ruleFields,
  servedFromOf
} from "./historyRule.js"
import { crowdedAt, type Listed, readCrowded } from "./crowdedMillisecond.js"
import { timedExit } from "./sentAt.js"
import { spotPool, type WalkPage } from "./spotPool.js"
import {
  spotClip,
  spotJoin,
  type SpotRequest,
  spotRequest,
  spotSlice,
  spotStep,
  type SpotWalkState,
  type TimedBill
} from "./spotWalk.js"
import { concurrencyOf, querySchema, sequential, startWalk, walk } from "./walk.js"

/** One spot call with parameters known to be valid. */
export type FetchSpot = (params: ValidSpotBillsParams) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>

const SpotQuery = querySchema({
  coinId: SpotBillsParams.from.fields.coinId,
  bizType: SpotBillsParams.from.fields.bizType
})

const start = Effect.fn("BillsApi.streamSpot.start")((query: SpotBillsQuery) =>
  startWalk("spotBills", SpotQuery, query, (valid, end) => new SpotCursor(freshWalk(valid.from, end, valid), true))
)

/**
 * The fields of a walk's cursor before its first page, over `[from, end)`, with `filters`.
 */
export const freshWalk = <F extends object>(from: number | undefined, end: number, filters: F) => {
  const lo = from ?? 0
  return {
    ...filters,
    end,
    lo,
    hi: end - 1,
    inclusiveAfter: false,
    inclusiveBefore: false,
    order: "unknown" as const,
    edgeBillIds: [],
    requests: 0,
    done: lo >= end
  }
}

/**
 * The cursor fields every time-window walk has: the walk's state, the window, what it learned of
 * the history rule, and its count.
 */
export interface WindowCursor extends SpotWalkState {
  readonly from?: number | undefined
  readonly end: number
  readonly servedFrom?: number | undefined
  readonly maxWidth?: number | undefined
  readonly requests: number
  readonly done: boolean
}

/**
 * One page of a time-window walk, in the shape of the public page values.
 */
export interface WindowPage<B, C> {
  readonly bills: ReadonlyArray<B>
  readonly received: number
  readonly requests: number
  readonly cursor: C
  readonly servedFrom?: ReturnType<typeof servedFromOf>
}

/**
 * What differs between the operations walked by time window.
 */
export interface WindowWalkSpec<Q, C extends WindowCursor, B extends TimedBill> {
  readonly operation: "spotBills" | "contractBills"
  /** Where the walk starts: the query checked, its cursor or a fresh one. */
  readonly start: (query: Q) => Effect.Effect<C, InvalidParams>
  /**
   * One request of the walk `cursor` stands in (its filters), over the bounds of `request`; with
   * the cursor to read on, where the operation has one (`crowdedMillisecond.ts`).
   */
  readonly fetch: (cursor: C, request: SpotRequest, limit: number) => Effect.Effect<Listed<B>, BillsError>
  /** The cursor `cursor` with `fields` changed, built without checking again. */
  readonly remake: (cursor: C, fields: Partial<WindowCursor>) => C
  /** The widest window the operation is known to accept before any refusal, if it has a limit. */
  readonly maxWidth?: number | undefined
}

/**
 * The page stream of a time-window walk: every bill of the query exactly once, in the server's
 * order, each page with the cursor to resume after it.
 */
export const windowPages =
  <Q, C extends WindowCursor, B extends TimedBill>(spec: WindowWalkSpec<Q, C, B>) =>
  (query: Q): Stream.Stream<WindowPage<B, C>, BillsError> => {
    const { operation, remake } = spec
    const fetchPage = spec.fetch

    /**
     * One page of a walk of `state` under the stream's history rule: the window clipped to the
     * horizon and sliced to the width, learning the rule from a refusal and trying again.
     */
    const walkPage = (rules: RuleCell, base: C, state: SpotWalkState): Effect.Effect<WalkPage<B>, BillsError> =>
      Effect.gen(function* () {
        const probe = probeBy((after, before) => fetchPage(base, { after, before }, 1))
        for (let attempt = 1; ; attempt++) {
          const rule = yield* rules.get
          const clipped = spotClip(state, rule.servedFrom)
          if (clipped === undefined) return { bills: [], next: undefined, received: 0, requests: 0 }
          const slice = spotSlice(clipped, rule.maxWidth)
          // Under a width limit every window has a start: the first millisecond of 1970 holds no bill.
          const asked = spotRequest(slice)
          const request = rule.maxWidth !== undefined && asked.after === undefined ? { ...asked, after: 0 } : asked
          const fetched = yield* Effect.either(fetchPage(base, request, maxPageSize))
          if (Either.isLeft(fetched)) {
            const error = fetched.left
            if (!isHistoryLimit(error) || attempt > maxRelearns) return yield* Effect.fail(error)
            const window = { start: request.after, end: request.before }
            if (!(yield* rules.refused(rule, error, window, probe))) return yield* Effect.fail(error)
            continue
          }
          const { items, more, saysMore } = fetched.right
          const stepped = spotStep(slice, request, items, maxPageSize, operation, saysMore === true)
          // A millisecond fuller than a page: read on by the cursor, when the answer gave one.
          const crowded =
            Either.isLeft(stepped) && more !== undefined
              ? crowdedAt(slice, items, maxPageSize, saysMore === true)
              : undefined
          const { requests, step } =
            crowded === undefined || more === undefined
              ? { requests: 1, step: yield* stepped }
              : yield* Effect.map(readCrowded(slice, crowded, items, more, maxPageSize, operation), (read) => ({
                  requests: read.requests + 1,
                  step: read.step
                }))
          return { ...spotJoin(clipped, slice, step), received: items.length, requests }
        }
      })

    const cursorAfter = (cursor: C, rule: HistoryRule, page: WalkPage<B>, requests: number): C =>
      // Built from a checked cursor and the walk's own numbers: no need to check it again.
      remake(cursor, {
        ...(page.next === undefined ? { done: true } : page.next),
        ...ruleFields(rule),
        requests
      })

    const spotPage = (rules: RuleCell) =>
      Effect.fnUntraced(function* (cursor: C) {
        const page = yield* walkPage(rules, cursor, cursor)
        const requests = cursor.requests + page.requests
        const next = cursorAfter(cursor, yield* rules.get, page, requests)
        const result: WindowPage<B, C> = {
          bills: page.bills,
          received: page.received,
          requests,
          cursor: next,
          servedFrom: servedFromOf(next)
        }
        return result
      })

    /** Pages after the first from a pool of walks over parts of the window. */
    const pooled = (
      rules: RuleCell,
      first: WindowPage<B, C>,
      before: C,
      concurrency: number,
      firstRoundTripMillis: number | undefined
    ): Stream.Stream<WindowPage<B, C>, BillsError> => {
      const from = first.cursor
      const nearest = first.bills[0]
      const density =
        first.received === maxPageSize
          ? openingDensity(
              before,
              from,
              first.received,
              nearest === undefined ? undefined : DateTime.toEpochMillis(nearest.cTime),
              firstRoundTripMillis
            )
          : undefined
      return Stream.mapEffect(
        spotPool(
          from,
          density,
          {
            concurrency,
            limit: maxPageSize,
            piecePages: defaultPiecePages,
            bufferPages: defaultBufferPages,
            maxWidth: from.maxWidth,
            firstRoundTripMillis
          },
          (state) => walkPage(rules, from, state)
        ),
        (pooledPage) =>
          Effect.map(rules.get, (rule): WindowPage<B, C> => {
            const requests = from.requests + pooledPage.requests
            const cursor = remake(from, {
              ...(pooledPage.rest ?? {}),
              ...ruleFields(rule),
              requests,
              // The rest of the window may lie wholly before a horizon the walks met on the way
              // (one that moved past a resumed cursor's): nothing of it is served, the walk is done.
              done: pooledPage.rest === undefined || spotClip(pooledPage.rest, rule.servedFrom) === undefined
            })
            return {
              bills: pooledPage.bills,
              received: pooledPage.received,
              requests,
              cursor,
              servedFrom: servedFromOf(cursor)
            }
          })
      )
    }

    return walk(
      Effect.gen(function* () {
        const concurrency = yield* concurrencyOf(operation, query as { readonly concurrency?: number | undefined })
        const begin = yield* spec.start(query)
        const rules = yield* makeRuleCell({ servedFrom: begin.servedFrom, maxWidth: begin.maxWidth ?? spec.maxWidth })
        const page = spotPage(rules)
        // The first page's round trip decides how many walks the pool opens with (`openAllAtMillis`).
        let firstRoundTrip: number | undefined
        const timedPage = (cursor: C) =>
          Effect.flatMap(timedExit(page(cursor)), ({ exit, now, sent }) => {
            firstRoundTrip ??= now - sent
            return exit
          })
        return {
          start: begin,
          page: timedPage,
          rest: (first: WindowPage<B, C>) =>
            concurrency === 1
              ? sequential(first.cursor, page)
              : pooled(rules, first, begin, concurrency, firstRoundTrip)
        }
      })
    )
  }

/**
 * The spot page stream over `fetch`: every bill of the query exactly once, in the server's
 * order, each page with the cursor to resume after it.
 */
export const spotPages = (fetch: FetchSpot): ((query?: SpotBillsQuery) => Stream.Stream<SpotPage, BillsError>) => {
  const pages = windowPages<SpotBillsQuery, SpotCursor, SpotBill>({
    operation: "spotBills",
    start,
    /** One request for the walk `cursor` stands in, over the part of the window `request` asks for. */
    fetch: Effect.fn("BillsApi.streamSpot.page")(function* (cursor: SpotCursor, request: SpotRequest, limit: number) {
      yield* Effect.annotateCurrentSpan({ ...request })
      const items = yield* fetch({
        coinId: cursor.coinId,
        bizType: cursor.bizType,
        after: request.after,
        before: request.before,
        limit
      })
      return { items }
    }),
    remake: (cursor, fields) => new SpotCursor({ ...cursor, ...fields }, true)
  })
  return (query = {}) => pages(query)
}
