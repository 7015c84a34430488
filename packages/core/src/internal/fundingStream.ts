/**
 * The funding page stream: the walk of {@link fundingStep} over the exchange, its first page
 * alone, then the pages after it read ahead (every request is known from its page number).
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type { FundingBillsPage } from "../Bill.js"
import { type BillsError, BillsIncomplete } from "../Errors.js"
import { maxPageSize } from "../Operation.js"
import { FundingBillsParams, type ValidFundingBillsParams } from "../Params.js"
import { FundingCursor, type FundingBillsQuery, type FundingPage } from "../Streams.js"
import { type FundingWalkState, fundingRequest, fundingStep } from "./fundingWalk.js"
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
import { concurrencyOf, nextState, querySchema, sequential, startWalk, walk } from "./walk.js"

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
      new FundingCursor(
        {
          ...valid,
          end,
          pageIndex: 1,
          previousPageBillIds: [],
          requests: 0,
          done: (valid.from ?? 0) >= end
        },
        true
      )
  )
)

/**
 * The part of the cursor's window the next pages cover under `rule`: from the later of `from`
 * and the horizon, and no wider than the exchange accepts (the window is then paged in parts,
 * the latest first, each part from page 1).
 */
const windowOf = (cursor: FundingCursor, rule: HistoryRule) => {
  const from = Math.max(cursor.from ?? 0, rule.servedFrom ?? 0)
  const end = cursor.windowEnd ?? cursor.end
  // The start bound is sent a millisecond early: the part spans `end - partFrom + 1` on the wire.
  const partFrom = rule.maxWidth === undefined ? from : Math.max(from, end - rule.maxWidth + 1)
  return { from, partFrom, end }
}

const stateOf = (cursor: FundingCursor, rule: HistoryRule): FundingWalkState => {
  const { end, partFrom } = windowOf(cursor, rule)
  return {
    from: partFrom,
    end,
    pageIndex: cursor.pageIndex,
    previousPageBillIds: cursor.previousPageBillIds,
    total: cursor.total
  }
}

/** What the walk asks for next, and under which rule. */
interface Planned {
  readonly rule: HistoryRule
  readonly state: FundingWalkState
}

/** The bounds of a request; under a width limit every window has a start (1970's first millisecond holds no bill). */
const requestOf = (planned: Planned) => {
  const request = fundingRequest(planned.state)
  return planned.rule.maxWidth !== undefined && request.startTime === undefined ? { ...request, startTime: 0 } : request
}

/** The order a page lists bills in, when its times show one. */
const listingOrder = (page: FundingBillsPage): "newest-first" | "oldest-first" | undefined => {
  const first = page.items[0]
  const last = page.items[page.items.length - 1]
  if (first === undefined || last === undefined) return undefined
  const a = DateTime.toEpochMillis(first.cTime)
  const b = DateTime.toEpochMillis(last.cTime)
  return a > b ? "newest-first" : a < b ? "oldest-first" : undefined
}

const applyPage = Effect.fnUntraced(function* (cursor: FundingCursor, planned: Planned, page: FundingBillsPage) {
  const { bills, incomplete, next } = yield* fundingStep(planned.state, page, maxPageSize)
  const requests = cursor.requests + 1
  const order = cursor.order ?? listingOrder(page)
  const { from } = windowOf(cursor, planned.rule)
  const after =
    incomplete !== undefined
      ? // The doubted page stays the next to read: a resumed walk asks for it again.
        {}
      : next !== undefined
        ? { pageIndex: next.pageIndex, previousPageBillIds: next.previousPageBillIds, total: next.total }
        : planned.state.from > from
          ? // This part is read; the part before it is next, from its first page.
            { windowEnd: planned.state.from, pageIndex: 1, previousPageBillIds: [], total: undefined }
          : { done: true }
  // Built from a checked cursor and the walk's own numbers: no need to check it again.
  const nextCursor = new FundingCursor(
    { ...cursor, ...ruleFields(planned.rule), ...(order === undefined ? {} : { order }), requests, ...after },
    true
  )
  const result: FundingPage = {
    bills,
    pageIndex: cursor.pageIndex,
    total: page.total,
    received: page.items.length,
    requests,
    cursor: nextCursor,
    servedFrom: servedFromOf(nextCursor),
    ...(incomplete === undefined ? {} : { incomplete })
  }
  return result
})

/**
 * The funding page stream over `fetch`: every bill of the query exactly once, page by page,
 * each page with the cursor to resume after it.
 */
export const fundingPages =
  (fetch: FetchFunding) =>
  (query: FundingBillsQuery = {}): Stream.Stream<FundingPage, BillsError> => {
    /** Page `pageIndex` of the walk `planned`; the request does not depend on the pages before. */
    const fetchPage = Effect.fn("BillsApi.streamFunding.page")(function* (
      cursor: FundingCursor,
      planned: Planned,
      pageIndex: number
    ) {
      const { endTime, startTime } = requestOf(planned)
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

    const probe = (cursor: FundingCursor) =>
      probeBy((startTime, endTime) =>
        fetch({ coinId: cursor.coinId, bizType: cursor.bizType, startTime, endTime, pageIndex: 1, pageSize: 1 })
      )

    const plan = (rules: RuleCell, cursor: FundingCursor) =>
      Effect.map(rules.get, (rule): Planned => ({ rule, state: stateOf(cursor, rule) }))

    /**
     * Page `cursor.pageIndex` (its fetch `fetched` when it was read ahead), learning the history
     * rule from a refusal of the first page of a part and trying again. A refusal after the
     * first page cannot be met so: the pages read would not match the narrower window.
     */
    const page = (
      rules: RuleCell,
      cursor: FundingCursor,
      ahead?: { readonly planned: Planned; readonly fetched: Fiber.Fiber<FundingBillsPage, BillsError> }
    ): Effect.Effect<FundingPage, BillsError> =>
      Effect.gen(function* () {
        let current = cursor
        for (let attempt = 1; ; attempt++) {
          // A page read ahead was asked for under the rule of its time: its state is this cursor's.
          const planned =
            attempt === 1 && ahead !== undefined
              ? { rule: ahead.planned.rule, state: stateOf(current, ahead.planned.rule) }
              : yield* plan(rules, current)
          if (planned.state.from >= planned.state.end) {
            // The exchange serves nothing of what is left: the walk ends without a request.
            const rest = new FundingCursor({ ...current, ...ruleFields(planned.rule), done: true }, true)
            return {
              bills: [],
              pageIndex: current.pageIndex,
              total: 0,
              received: 0,
              requests: current.requests,
              cursor: rest,
              servedFrom: servedFromOf(rest)
            } satisfies FundingPage
          }
          const fetched = yield* Effect.either(
            attempt === 1 && ahead !== undefined
              ? Fiber.join(ahead.fetched)
              : fetchPage(current, planned, current.pageIndex)
          )
          if (Either.isRight(fetched)) return yield* applyPage(current, planned, fetched.right)
          const error = fetched.left
          if (!isHistoryLimit(error) || attempt > maxRelearns) return yield* Effect.fail(error)
          // After the first page of a part, a narrower window keeps the pages read only when the
          // exchange lists newest first: what the horizon took is at the end of the listing.
          if (current.pageIndex > 1 && current.order !== "newest-first") {
            return yield* Effect.fail(
              new BillsIncomplete({
                operation: "fundingBills",
                description: `the exchange stopped serving this window after page ${current.pageIndex - 1} (${error.msg}), and its pages are not known to list newest first, so the pages read may not match a narrower window; start the walk again without its cursor`
              })
            )
          }
          const { endTime, startTime } = requestOf(planned)
          const window = { start: startTime, end: endTime }
          if (!(yield* rules.refused(planned.rule, error, window, probe(current)))) return yield* Effect.fail(error)
          // The narrower window's total is smaller: the pages go on, compared from here.
          if (current.pageIndex > 1) current = new FundingCursor({ ...current, total: undefined }, true)
        }
      })

    /**
     * Pages after the first, `concurrency` fetched ahead: every request is known from the page
     * number, and the pages that exist are known from the last total, so pages are fetched ahead
     * and stepped through in order. A page that fails fails the stream when its turn comes. At
     * most `concurrency` pages (`concurrency × 100` bills) are held ahead of the consumer.
     */
    const ahead = (
      rules: RuleCell,
      first: FundingCursor,
      concurrency: number
    ): Stream.Stream<FundingPage, BillsError> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const scope = yield* Effect.scope
          // Keyed by the part of the window and the page: parts are paged from 1 each.
          const inFlight = new Map<
            string,
            { readonly planned: Planned; readonly fetched: Fiber.Fiber<FundingBillsPage, BillsError> }
          >()
          const key = (planned: Planned, pageIndex: number) => `${planned.state.from}:${planned.state.end}:${pageIndex}`
          const fetchAhead = (cursor: FundingCursor, planned: Planned) =>
            Effect.gen(function* () {
              const known = Math.ceil((cursor.total ?? 0) / maxPageSize)
              const last = Math.max(cursor.pageIndex, Math.min(known, cursor.pageIndex + concurrency - 1))
              for (let i = cursor.pageIndex; i <= last; i++) {
                if (!inFlight.has(key(planned, i))) {
                  const fetched = yield* Effect.forkIn(fetchPage(cursor, planned, i), scope)
                  inFlight.set(key(planned, i), { planned, fetched })
                }
              }
            })
          return Stream.paginateEffect(first as FundingCursor | BillsIncomplete, (state) =>
            Effect.gen(function* () {
              if (state instanceof BillsIncomplete) return yield* Effect.fail(state)
              const cursor = state
              const planned = yield* plan(rules, cursor)
              if (planned.state.from < planned.state.end) yield* fetchAhead(cursor, planned)
              const fetched = inFlight.get(key(planned, cursor.pageIndex))
              inFlight.delete(key(planned, cursor.pageIndex))
              // A page fetched ahead may be older than the page before it: when bills were booked in
              // between, the two do not fit (the total fell). Fetched again now, it is newer, as in
              // a walk one page at a time; only if it still does not fit does the walk fail.
              const read = yield* page(rules, cursor, fetched).pipe(
                Effect.catchTag("BillsIncomplete", (error) =>
                  fetched === undefined ? Effect.fail(error) : page(rules, cursor)
                )
              )
              // A doubted last page read ahead is read again too before its doubt is believed.
              const next = read.incomplete !== undefined && fetched !== undefined ? yield* page(rules, cursor) : read
              return [next, nextState(next)] as const
            })
          )
        })
      )

    return walk(
      Effect.gen(function* () {
        const concurrency = yield* concurrencyOf("fundingBills", query)
        const begin = yield* start(query)
        const rules = yield* makeRuleCell({ servedFrom: begin.servedFrom, maxWidth: begin.maxWidth })
        const first = (cursor: FundingCursor) => page(rules, cursor)
        return {
          start: begin,
          page: first,
          rest: (p: FundingPage) =>
            concurrency === 1 ? sequential(p.cursor, first) : ahead(rules, p.cursor, concurrency)
        }
      })
    )
  }
