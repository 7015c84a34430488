/**
 * Keeps the client under the exchange's rate limit: per operation, never more than `limit`
 * permits in any sliding window. One permit is taken per attempt, retries included, and the
 * limiter is shared by every fiber that uses the layer.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
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
   * server because an earlier one was delayed in transit. Default 25 ms.
   */
  readonly margin?: Duration.DurationInput
}

/**
 * @since 0.1.0
 */
export interface BillsRateLimiterShape {
  /** Waits until a request of `operation` may be sent, and takes the permit. */
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
  /** A limiter with its own state. A limit below 1 is taken as 1. */
  static readonly make = (options: RateLimitOptions = {}): Effect.Effect<BillsRateLimiterShape> =>
    Effect.gen(function* () {
      const limit = Math.max(1, Math.floor(options.limit ?? 10))
      const spacing =
        Duration.toMillis(options.window ?? Duration.seconds(1)) + Duration.toMillis(options.margin ?? Duration.millis(25))
      const windows = {
        fundingBills: yield* slidingWindow(limit, spacing),
        spotBills: yield* slidingWindow(limit, spacing)
      }
      return BillsRateLimiter.of({ take: (operation) => windows[operation] })
    })

  /** A limiter layer, 10 per second per operation by default. */
  static readonly layer = (options: RateLimitOptions = {}): Layer.Layer<BillsRateLimiter> =>
    Layer.effect(BillsRateLimiter, BillsRateLimiter.make(options))

  /** No limit at all: for benchmarks and servers without one. */
  static readonly layerUnlimited: Layer.Layer<BillsRateLimiter> = Layer.succeed(
    BillsRateLimiter,
    BillsRateLimiter.of({ take: () => Effect.void })
  )
}

/**
 * One window: the times of the last `limit` permits, oldest first. A new permit is granted
 * `spacing` ms after the permit `limit` places before it. Takers queue on a semaphore, so
 * they are served in order and the times stay sorted.
 */
const slidingWindow = (limit: number, spacing: number): Effect.Effect<Effect.Effect<void>> =>
  Effect.map(Effect.makeSemaphore(1), (semaphore) => {
    const granted: Array<number> = []
    return semaphore.withPermits(1)(
      Effect.gen(function* () {
        if (granted.length >= limit) {
          // Shift only after the wait, so an interrupted taker leaves the window as it was.
          const wait = (granted[0] ?? 0) + spacing - (yield* Clock.currentTimeMillis)
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          granted.shift()
        }
        granted.push(yield* Clock.currentTimeMillis)
      })
    )
  })
