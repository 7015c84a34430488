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
import * as Layer from "effect/Layer"
import type { OperationName } from "./Operation.js"

/**
 * Settings of the limiter.
 *
 * @since 0.1.0
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
}

/**
 * @since 0.1.0
 */
export interface BillsRateLimiterShape {
  /**
   * Waits until a request of `operation` may be sent, and takes the permit. Takers are served
   * first come, first served; a taker interrupted while waiting gives its permit back.
   */
  readonly take: (operation: OperationName) => Effect.Effect<void>
}

/**
 * The per-operation sliding-window limiter.
 *
 * @since 0.1.0
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
        spotBills: slidingWindow(limit, spacing)
      }
      return BillsRateLimiter.of({ take: (operation) => windows[operation] })
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
    BillsRateLimiter.of({ take: () => Effect.void })
  )
}

/** The monotonic clock in milliseconds, so a wall-clock jump cannot stall or burst the limiter. */
const monotonicMillis = (clock: { readonly unsafeCurrentTimeNanos: () => bigint }): number =>
  Number(clock.unsafeCurrentTimeNanos()) / 1_000_000

/**
 * One window, as a schedule of permit times (granted or still awaited), ascending. A taker
 * books its time synchronously on arrival, so takers are served in arrival order and no
 * later taker can overtake a waiting one. The invariant: every permit is at least `spacing`
 * after the permit `limit` places before it, so no window of `spacing` holds more than
 * `limit` permits. Removing a booked time (an interrupted taker) keeps the invariant, because
 * it only thins the windows of the others.
 */
const slidingWindow = (limit: number, spacing: number): Effect.Effect<void> => {
  const booked: Array<number> = []
  const book = (now: number): number => {
    // Permits a whole spacing old constrain nobody who comes now or later.
    let stale = 0
    while (stale < booked.length && (booked[stale] as number) + spacing <= now) stale++
    booked.splice(0, stale)
    const bound = booked.length >= limit ? (booked[booked.length - limit] as number) + spacing : now
    // Never before the last booking, so the schedule stays sorted and first come is first served.
    const at = Math.max(now, bound, booked[booked.length - 1] ?? now)
    booked.push(at)
    return at
  }
  const release = (at: number): void => {
    const index = booked.lastIndexOf(at)
    if (index >= 0) booked.splice(index, 1)
  }
  return Effect.uninterruptibleMask((restore) =>
    Effect.clockWith((clock) => {
      const now = monotonicMillis(clock)
      const at = book(now)
      return at <= now
        ? Effect.void
        : restore(Effect.sleep(Duration.millis(Math.ceil(at - now)))).pipe(
            Effect.onInterrupt(() => Effect.sync(() => release(at)))
          )
    })
  )
}
