/**
 * Several spot walks at once, whose output is one walk's output: the runner of the plan
 * (`spotPlan.ts`), which decides where to cut and how many walks run. The runner only forks
 * walks, offers their pages to their segment's queue, pulls the head's queue, and asks the plan
 * inside `Effect.sync`, so no rule here depends on where a fiber may yield.
 *
 * One walk cannot go faster than a request per round trip: each request depends on the edge of
 * the page before. So the unread window is cut into segments, each walked on its own with the
 * same step (`spotStep`), and the segments are emitted one after the other in the server's
 * order (newest first: the segment with the latest times first). Segments partition the window,
 * and each walk lists its segment exactly once, so the whole is listed exactly once.
 *
 * Memory: each segment's queue holds at most `bufferPages` pages and one more its walk waits to
 * hand over, and the plan lets at most `concurrency` segments besides the head hold pages: the
 * reorder buffer holds at most `(concurrency + 1) × (bufferPages + 1) × limit` bills.
 *
 * The order and resumption contract carry over: pages come out in order, so when a page of a
 * segment is emitted, everything after it in the output is still unread, and that is one time
 * range (the rest of this segment and all later ones) plus the ids emitted at its edge
 * millisecond: the cursor of a single walk.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { BillsError } from "../Errors.js"
import { timedExit } from "./sentAt.js"
import { makeSpotPlan, type Segment, type SpotPoolOptions } from "./spotPlan.js"
import type { SpotWalkState, TimedBill } from "./spotWalk.js"

/**
 * One page of the pooled walk, with the state of a single walk over everything after it.
 */
export interface PooledPage<B extends TimedBill = TimedBill> {
  readonly bills: ReadonlyArray<B>
  readonly received: number
  /** Requests completed by the whole pool when this page was emitted. */
  readonly requests: number
  /** The rest of the window after this page, as one walk; `undefined` when nothing is left. */
  readonly rest: SpotWalkState | undefined
}

/**
 * One page of a segment's walk: the bills to emit, the state after it (`undefined` once the
 * segment is read), the records received, and the requests made (none for a segment the
 * exchange no longer serves; more than one where a cursor read a crowded millisecond on).
 */
export interface WalkPage<B extends TimedBill = TimedBill> {
  readonly bills: ReadonlyArray<B>
  readonly next: SpotWalkState | undefined
  readonly received: number
  readonly requests: number
}

type Item<B extends TimedBill> =
  | { readonly _tag: "Page"; readonly page: Omit<PooledPage<B>, "requests">; readonly last: boolean }
  | { readonly _tag: "Failed"; readonly error: BillsError }
  // A walk that died (a defect): the stream fails with it rather than wait for a page forever.
  | { readonly _tag: "Died"; readonly cause: Cause.Cause<never> }

/**
 * The pooled walk from `start` (a walk's state after at least one page), lazily: nothing is
 * fetched until the stream is pulled. `density` is what the page before `start` measured.
 */
export const spotPool = <B extends TimedBill>(
  start: SpotWalkState,
  density: number | undefined,
  options: SpotPoolOptions,
  page: (state: SpotWalkState) => Effect.Effect<WalkPage<B>, BillsError>
): Stream.Stream<PooledPage<B>, BillsError> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const plan = makeSpotPlan(start, density, options, yield* Clock.currentTimeMillis)
      const scope = yield* Effect.scope
      // Each segment's queue is made right after the plan creates the segment, in the same fiber
      // and before anything that could emit the segment before it: its queue exists when pulled.
      const queues = new Map<Segment, Queue.Queue<Item<B>>>()
      const open = (segment: Segment | undefined) =>
        segment === undefined
          ? Effect.void
          : Effect.map(Queue.bounded<Item<B>>(options.bufferPages), (queue) => {
              queues.set(segment, queue)
            })
      const queueOf = (segment: Segment) => queues.get(segment) as Queue.Queue<Item<B>>

      /** Starts pending segments, first in output order, while the plan has room for them. */
      const schedule: Effect.Effect<void> = Effect.gen(function* () {
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          const next = plan.claimNext(now)
          if (next === undefined) return
          yield* open(next.created)
          yield* Effect.forkIn(walkSegment(next.claimed), scope)
        }
      })

      const walkSegment = (segment: Segment): Effect.Effect<void> =>
        Effect.gen(function* () {
          const queue = queueOf(segment)
          for (let first = true; ; first = false) {
            const before = yield* Effect.sync(() => segment.state)
            // The round trip starts when the request left the limiter, not when the page was asked for.
            const { exit: result, sent, now } = yield* timedExit(page(before))
            const timing = { sent, now }
            if (Exit.isFailure(result)) {
              const failure = Cause.failureOption(result.cause)
              yield* Effect.sync(() => plan.afterFailure(segment, timing))
              yield* Queue.offer(
                queue,
                Option.isSome(failure)
                  ? { _tag: "Failed", error: failure.value }
                  : { _tag: "Died", cause: Cause.stripFailures(result.cause) }
              )
              return
            }
            const { bills, next, received, requests } = result.value
            if (next === undefined) {
              const rest = yield* Effect.sync(() =>
                plan.afterEnd(segment, { first, bills: bills.length, requests }, requests > 0 ? timing : undefined)
              )
              // Its place may go to a segment that waits: under a width rule, the next part of a gap.
              yield* schedule
              yield* Queue.offer(queue, { _tag: "Page", page: { bills, received, rest }, last: true })
              return
            }
            const after = yield* Effect.sync(() =>
              plan.afterPage(segment, { before, next, bills: bills.length, received, requests }, timing)
            )
            yield* open(after.created)
            if (after.schedule) yield* schedule
            yield* Queue.offer(queue, { _tag: "Page", page: { bills, received, rest: after.rest }, last: after.last })
            if (after.last) return
          }
        })

      const pull: Effect.Effect<PooledPage<B>, Option.Option<BillsError>> = Effect.suspend(() => {
        const current = plan.head()
        if (current === undefined) return Effect.fail(Option.none())
        return Effect.flatMap(Queue.take(queueOf(current)), (item) => {
          if (item._tag === "Failed") return Effect.fail(Option.some(item.error))
          if (item._tag === "Died") return Effect.failCause(item.cause)
          return Effect.flatMap(
            Effect.sync(() => {
              plan.emitted(current, item.page.bills.length, item.last)
              if (item.last) queues.delete(current)
              return { ...item.page, requests: plan.requests() }
            }),
            (page) => (item.last ? Effect.as(schedule, page) : Effect.succeed(page))
          )
        })
      })

      yield* open(plan.head())
      yield* schedule
      return Stream.repeatEffectOption(pull)
    })
  )
