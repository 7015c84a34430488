/**
 * Keeps the client under the exchange's rate limit: per operation, never more than `limit`
 * permits in any sliding window. One permit is taken per attempt, retries included, and the
 * limiter is shared by every fiber that uses the layer.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Deferred from "effect/Deferred"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Exit from "effect/Exit"
import * as PermitRule from "./internal/permitRule.js"
import type { OperationName } from "./Operation.js"

/**
 * Settings of the limiter.
 *
 * @since 0.1.0
 * @category models
 */
export interface RateLimitOptions {
  /** Permits per window and operation. Default 10. */
  readonly limit?: number
  /** Length of the sliding window. Default 1 second. */
  readonly window?: Duration.DurationInput
  /**
   * Added to the window so that a request sent just in time cannot arrive early at the
   * server because an earlier one was delayed in transit (or in signing after its permit).
   * Default 25 ms, which costs 2.5% of the throughput at 10 per second.
   */
  readonly margin?: Duration.DurationInput
  /**
   * Where the limiter places a request's arrival at the server. `"serverTime"` (the default)
   * uses the `requestTime` the server stamps on its answer, so a window reopens about when the
   * server saw the request, and for answers without a stamp (the v3 interface) how much the
   * round trips vary; `"answer"` assumes nothing and waits for the answer, which costs a round
   * trip per slot.
   */
  readonly arrival?: "serverTime" | "answer" | undefined
}

/**
 * What a request's outcome told about its arrival at the server.
 *
 * @since 0.1.0
 * @category models
 */
export interface PermitOutcome {
  /** The server's stamp of the request (`requestTime`, epoch ms by its clock), when it answered one. */
  readonly serverTime: number | undefined
  /** The server refused the request for the rate limit. */
  readonly rateLimited: boolean
  /**
   * The server answered (a response was read, whatever its status), so the attempt's duration
   * is a round trip; not after a timeout or a broken connection. Default: whether it stamped.
   */
  readonly answered?: boolean | undefined
}

/**
 * What the `BillsRateLimiter` service does: run each request of an operation under a permit of
 * its sliding window.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsRateLimiterShape {
  /**
   * Runs one request of `operation` under a permit. Takers are served first come, first served;
   * a taker interrupted while waiting gives its permit back. Without `observe`, the permit
   * counts in the window until the request has finished, because only then is its arrival at
   * the server certain to lie in the past; a request interrupted on its way counts until it can
   * no longer arrive (the longest round trip seen from its grant). With `observe`, the server's
   * own stamp of the request (`requestTime`), or without one how much round trips vary, places
   * the arrival more closely, so the next window can open sooner; see `internal/permitRule.ts`
   * for the rules and why they are safe.
   */
  readonly withPermit: (
    operation: OperationName,
    observe?: (outcome: Exit.Exit<unknown, unknown>) => PermitOutcome
  ) => <A, E, R>(request: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** A permit for a request that finishes at once: `withPermit(operation)(Effect.void)`. */
  readonly take: (operation: OperationName) => Effect.Effect<void>
}

/**
 * The per-operation sliding-window limiter.
 *
 * @since 0.1.0
 * @category tags
 */
export class BillsRateLimiter extends Context.Tag("@account-bills/core/BillsRateLimiter")<
  BillsRateLimiter,
  BillsRateLimiterShape
>() {
  /** A limiter with its own state. A limit below 1 is taken as 1, a negative window or margin as 0. */
  static readonly make = (options: RateLimitOptions = {}): Effect.Effect<BillsRateLimiterShape> =>
    Effect.sync(() => {
      const limit = Math.max(1, Math.floor(options.limit ?? 10))
      const spacing = Math.max(
        0,
        Duration.toMillis(options.window ?? Duration.seconds(1)) +
          Duration.toMillis(options.margin ?? Duration.millis(25))
      )
      const windows = {
        fundingBills: slidingWindow(limit, spacing),
        spotBills: slidingWindow(limit, spacing),
        // The futures interface's own budget: weight 5 of 500 per 10 s per UID is the same 10 per second.
        contractBills: slidingWindow(limit, spacing)
      }
      const stamps = options.arrival !== "answer"
      return BillsRateLimiter.of({
        withPermit: (operation, observe) => (request) => windows[operation](request, stamps ? observe : undefined),
        take: (operation) => windows[operation](Effect.void)
      })
    })

  /**
   * A limiter layer, 10 per second per operation by default. Build it once and share it: each
   * call of `layer` makes a limiter with its own state.
   */
  static readonly layer = (options: RateLimitOptions = {}): Layer.Layer<BillsRateLimiter> =>
    Layer.effect(BillsRateLimiter, BillsRateLimiter.make(options))

  /** No limit at all: for benchmarks and servers without one. */
  static readonly layerUnlimited: Layer.Layer<BillsRateLimiter> = Layer.succeed(
    BillsRateLimiter,
    BillsRateLimiter.of({ withPermit: () => (request) => request, take: () => Effect.void })
  )
}

/** The monotonic clock in milliseconds, so a wall-clock jump cannot stall or burst the limiter. */
const monotonicMillis = (clock: { readonly unsafeCurrentTimeNanos: () => bigint }): number =>
  Number(clock.unsafeCurrentTimeNanos()) / 1_000_000

/**
 * A permit in the window: when it was granted, and when its request was last at the server, as
 * values once known. A taker that finds them known reads them without suspending (most takers,
 * at any pace); only one that must wait for them makes the Deferred it waits on (making one
 * costs more than the rest of a permit together).
 */
interface Slot {
  grantedAt: number | undefined
  settledAs: PermitRule.Settled | undefined
  granted: Deferred.Deferred<number> | undefined
  settled: Deferred.Deferred<PermitRule.Settled> | undefined
}

const never: Slot = {
  grantedAt: Number.NEGATIVE_INFINITY,
  settledAs: {
    granted: Number.NEGATIVE_INFINITY,
    finished: Number.NEGATIVE_INFINITY,
    serverTime: undefined,
    answered: false
  },
  granted: undefined,
  settled: undefined
}

/** The Deferred of a slot's grant, made on first need and completed at once if it is known. */
const grantedOf = (slot: Slot): Deferred.Deferred<number> => {
  if (slot.granted === undefined) {
    slot.granted = Deferred.unsafeMake<number>(FiberId.none)
    if (slot.grantedAt !== undefined) Deferred.unsafeDone(slot.granted, Effect.succeed(slot.grantedAt))
  }
  return slot.granted
}

/** The Deferred of a slot's outcome, made on first need and completed at once if it is known. */
const settledOf = (slot: Slot): Deferred.Deferred<PermitRule.Settled> => {
  if (slot.settled === undefined) {
    slot.settled = Deferred.unsafeMake<PermitRule.Settled>(FiberId.none)
    if (slot.settledAs !== undefined) Deferred.unsafeDone(slot.settled, Effect.succeed(slot.settledAs))
  }
  return slot.settled
}

/**
 * One window. Permit `p` waits for the request of permit `q = p - limit` to settle, then for
 * `spacing` after the instant its window opens ({@link PermitRule}). A permit placed by `q`'s
 * answer while stamps and round trips were not yet trusted is placed again once they are.
 *
 * A taker books its slot synchronously on arrival and waits for the one before it to be
 * granted, so takers are served in arrival order. A taker interrupted before its grant hands
 * its place on: its slot takes the grant time and the outcome of the slot before it, which is
 * the one its dependents must then wait for instead.
 *
 * Waiting costs CPU per request whatever the limiter does (each wake-up from a timer does), so
 * the limiter adds as little as it can to it: a taker whose slots are done does not suspend, a
 * permit whose window is open does not sleep, one that must wait sleeps once on the fiber that
 * asked (no fiber is forked for it, but while the rule does not trust, below), and the
 * bookkeeping after the request is plain code, not effects.
 */
const slidingWindow = (limit: number, spacing: number) => {
  const slots: Array<Slot> = []
  const rule = PermitRule.make()
  // Completed when the rule starts trusting stamps or round trips: permits waiting under the rule
  // that waits for answers may then go sooner.
  const trusted = Deferred.unsafeMake<void>(FiberId.none)
  /**
   * Sleeps until the window `settled` leaves open lets the next permit go, if it is not yet open.
   * What the rule learnt during the sleep can move that instant later (an answer showing a way
   * there shorter than any seen, a 429): the permit then sleeps on to it. Never earlier, so a timer
   * that fires a little early costs no second sleep.
   */
  const untilEarliest = (settled: PermitRule.Settled, edge = Number.NEGATIVE_INFINITY): Effect.Effect<void> =>
    Effect.clockWith((clock) => {
      const opens = rule.opens(settled) + spacing
      if (opens <= edge) return Effect.void
      const wait = opens - monotonicMillis(clock)
      return wait > 0
        ? Effect.zipRight(
            clock.sleep(Duration.millis(Math.ceil(wait))),
            Effect.suspend(() => untilEarliest(settled, opens))
          )
        : Effect.void
    })
  /** The wait of a permit whose dependency has settled as `settled`. */
  const placed = (settled: PermitRule.Settled): Effect.Effect<void> => {
    if (rule.trusted() || !settled.answered) return untilEarliest(settled)
    // Placed by its answer; should the rule start trusting meanwhile, placed again. Only until
    // the rule trusts (the first window, or for good after a 429, when each wait is a window).
    return Effect.flatMap(
      Effect.raceFirst(Effect.as(untilEarliest(settled), true), Effect.as(Deferred.await(trusted), false)),
      (slept) => (slept ? Effect.void : untilEarliest(settled))
    )
  }
  return <A, E, R>(
    request: Effect.Effect<A, E, R>,
    observe?: (outcome: Exit.Exit<unknown, unknown>) => PermitOutcome
  ): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const previous = slots[slots.length - 1] ?? never
        const dependency = slots.length >= limit ? (slots[slots.length - limit] ?? never) : never
        const mine: Slot = { grantedAt: undefined, settledAs: undefined, granted: undefined, settled: undefined }
        slots.push(mine)
        if (slots.length > limit) slots.shift()
        const known = dependency.settledAs
        const wait =
          previous.grantedAt !== undefined && known !== undefined
            ? placed(known)
            : Effect.zipRight(
                Effect.suspend(() => Deferred.await(grantedOf(previous))),
                Effect.flatMap(
                  Effect.suspend(() => Deferred.await(settledOf(dependency))),
                  placed
                )
              )
        const run = Effect.clockWith((clock) => {
          const granted = monotonicMillis(clock)
          mine.grantedAt = granted
          if (mine.granted !== undefined) Deferred.unsafeDone(mine.granted, Effect.succeed(granted))
          return Effect.flatMap(Effect.exit(restore(request)), (exit) => {
            const ended = monotonicMillis(clock)
            // An interrupted request may be on the wire still and reach the server after this
            // instant (the consumer stopped, a pass reached its bound): its slot lasts until it can
            // no longer arrive, the longest round trip seen from its grant, or a window before any.
            const finished = Exit.isInterrupted(exit)
              ? Math.max(ended, granted + (rule.longestRoundTrip() ?? spacing))
              : ended
            const outcome = observe?.(exit)
            const serverTime = outcome?.serverTime
            const settled: PermitRule.Settled = {
              granted,
              finished,
              serverTime,
              answered: outcome?.answered ?? serverTime !== undefined
            }
            rule.record(settled, outcome?.rateLimited === true)
            if (rule.trusted()) Deferred.unsafeDone(trusted, Effect.void)
            mine.settledAs = settled
            if (mine.settled !== undefined) Deferred.unsafeDone(mine.settled, Effect.succeed(settled))
            return exit
          })
        })
        return restore(wait).pipe(
          Effect.onInterrupt(() =>
            Effect.all([
              Deferred.completeWith(
                grantedOf(mine),
                Effect.suspend(() => Deferred.await(grantedOf(previous)))
              ),
              Deferred.completeWith(
                settledOf(mine),
                Effect.suspend(() => Deferred.await(settledOf(previous)))
              )
            ])
          ),
          Effect.zipRight(run)
        )
      })
    )
}
