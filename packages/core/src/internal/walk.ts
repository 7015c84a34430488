/**
 * What the funding and spot streams share: the query's window rule and concurrency, where a walk
 * starts (a fresh cursor, or a resumed one that must belong to the query), and the skeleton of
 * every walk — the first page alone, then the rest only once the consumer pulls past it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as BillsMetrics from "../BillsMetrics.js"
import { type BillsError, BillsIncomplete, InvalidParams } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import { TimeBound } from "../Params.js"
import { defaultConcurrency } from "../Streams.js"
import { validate } from "./validate.js"
import { startNotAfterEnd } from "./windowOrder.js"

const Concurrency = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(64))
// Built once: a fleet starts three walks per pass, and a schema built per walk showed in its profile.
const ConcurrencyField = Schema.Struct({ concurrency: Concurrency })

/** The query's `concurrency`, checked, or {@link defaultConcurrency}. */
export const concurrencyOf = (operation: OperationName, query: { readonly concurrency?: number | undefined }) =>
  query.concurrency === undefined
    ? Effect.succeed(defaultConcurrency)
    : validate(operation, ConcurrencyField, { concurrency: query.concurrency }).pipe(
        Effect.map((valid) => valid.concurrency)
      )

const windowRule = (query: { readonly from?: number | undefined; readonly to?: number | undefined }) =>
  startNotAfterEnd("from", "to", query.from, query.to)

/**
 * The schema of a stream query's own fields (the cursor and concurrency are checked apart):
 * the window, decoded to epoch ms, whose start is not after its end, and the operation's filters.
 */
export const querySchema = <F extends Schema.Struct.Fields>(filters: F) =>
  Schema.Struct({ from: Schema.optional(TimeBound), to: Schema.optional(TimeBound), ...filters }).pipe(
    Schema.filter(windowRule)
  )

/**
 * The query fields a cursor remembers.
 */
export interface QueryFields {
  readonly from?: number | undefined
  readonly to?: number | undefined
  /** The operation's filters (`coinId`, `bizType`; `asset`, `symbol`, `incomeType`). */
  readonly [filter: string]: string | number | undefined
}

/** Fields given beside a cursor must be the cursor's own, or the walk would answer another query. */
const checkResume = (operation: OperationName, cursor: object, given: QueryFields) => {
  const remembered = cursor as Readonly<Record<string, unknown>>
  for (const field of Object.keys(given)) {
    const value = given[field]
    if (value !== undefined && value !== remembered[field]) {
      return Effect.fail(
        new InvalidParams({
          operation,
          field: "cursor",
          rule: `the cursor belongs to a query with ${field} ${String(remembered[field] ?? "unset")}, not ${value}`
        })
      )
    }
  }
  return Effect.void
}

/**
 * Where a walk starts: the query checked, then its cursor (which must belong to it) or a fresh
 * cursor from `fresh`, given the query and the end pinned to the clock now. `fresh` builds the
 * cursor without checking it again (`new Cursor(fields, true)`): its fields are the checked
 * query's and the clock's, and a class's check rebuilds its type's AST on every call.
 */
export const startWalk = <Q extends QueryFields, I, C extends object>(
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
    // A window entirely in the future holds nothing yet: as with from after to, say so.
    if (valid.from !== undefined && valid.from > now) {
      return yield* new InvalidParams({
        operation,
        field: "from",
        rule: `from must not be in the future (it is ${new Date(valid.from).toISOString()}, the walk starts at ${new Date(now).toISOString()})`
      })
    }
    return fresh(valid, Math.min(valid.to ?? now, now))
  })

/**
 * A page of a walk: its cursor, and the failure that follows its bills when its fields disagree
 * (the page is delivered, then the stream fails: nothing received is dropped).
 */
export interface PageOfWalk<C> {
  readonly cursor: C
  readonly incomplete?: BillsIncomplete | undefined
}

/** What follows `page` in a walk: its cursor, the failure it carries, or the end. */
export const nextState = <C extends { readonly done: boolean }>(
  page: PageOfWalk<C>
): Option.Option<C | BillsIncomplete> =>
  page.incomplete !== undefined
    ? Option.some(page.incomplete)
    : page.cursor.done
      ? Option.none()
      : Option.some(page.cursor)

/** Pages from `start` on, each fetched only when the stream is pulled. */
export const sequential = <C extends { readonly done: boolean }, P extends PageOfWalk<C>>(
  start: C,
  page: (cursor: C) => Effect.Effect<P, BillsError>
): Stream.Stream<P, BillsError> =>
  start.done
    ? Stream.empty
    : Stream.paginateEffect(start as C | BillsIncomplete, (state) =>
        state instanceof BillsIncomplete
          ? Effect.fail(state)
          : Effect.map(page(state), (p) => [p, nextState(p)] as const)
      )

/**
 * What a walk is built from, made when the stream is first pulled: where it starts, how one page
 * is fetched, and the stream of the pages after the first.
 */
export interface WalkPlan<C, P extends PageOfWalk<C>> {
  readonly start: C
  readonly page: (cursor: C) => Effect.Effect<P, BillsError>
  readonly rest: (page: P) => Stream.Stream<P, BillsError>
}

/**
 * The first page alone, fetched when the stream is first pulled (after `plan`), then `rest`
 * after it, started only when the consumer pulls past the first page: taking a few bills costs
 * one request. One stage for the first page and one for the rest, not an unwrap, a flatMap and
 * a concat around it: every stage is channel machinery a run pays for in full, and a walk of one
 * page (a fleet's steady pass, three a pass) paid about four times what the page's own effects
 * cost for it.
 */
export const walk = <C extends { readonly done: boolean }, P extends PageOfWalk<C>>(
  plan: Effect.Effect<WalkPlan<C, P>, BillsError>
): Stream.Stream<P, BillsError> =>
  Stream.suspend(() => {
    // Each run of the stream walks afresh: the state lives in the run, not in the stream value.
    let pulled = false
    let first: { readonly page: P; readonly plan: WalkPlan<C, P> } | undefined
    const head = Stream.repeatEffectOption(
      Effect.suspend(() => {
        if (pulled) return Effect.fail(Option.none())
        pulled = true
        return Effect.flatMap(Effect.mapError(plan, Option.some), (made) =>
          made.start.done
            ? Effect.fail(Option.none())
            : Effect.map(Effect.mapError(made.page(made.start), Option.some), (page) => {
                first = { page, plan: made }
                return page
              })
        )
      })
    )
    return Stream.concat(
      head,
      Stream.suspend(() =>
        first === undefined
          ? Stream.empty
          : first.page.incomplete !== undefined
            ? Stream.fail(first.page.incomplete)
            : first.page.cursor.done
              ? Stream.empty
              : first.plan.rest(first.page)
      )
    )
  })

/** The bills of a page stream, counted in the operation's bills metric as they go out. */
export const billsOf = <B, P extends { readonly bills: ReadonlyArray<B> }>(
  operation: OperationName,
  pages: Stream.Stream<P, BillsError>
): Stream.Stream<B, BillsError> =>
  Stream.mapConcat(
    Stream.tap(pages, (page) =>
      Metric.incrementBy(BillsMetrics.forOperation(BillsMetrics.bills, operation), page.bills.length)
    ),
    (page) => page.bills
  )
