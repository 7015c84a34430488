/**
 * The distance between a client and the fake exchange: a round trip of `millis`, plus up to
 * `jitterMillis` drawn per request from a seeded source. Half of each request's delay passes
 * before the model counts and answers it, half after, as on a real network where the server
 * stamps `requestTime` somewhere in the middle of the round trip. A request on its way arrives
 * even if its sender gives up meanwhile, as on a real network: a client that stops waiting has
 * not recalled it, and the exchange counts it. The delays are `Effect.sleep`, so under
 * `TestClock` they cost no wall-clock time and stay deterministic.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Prng from "./Prng.js"

/**
 * A simulated round trip.
 *
 * @since 0.1.0
 */
export interface LatencyOptions {
  /** The round trip without jitter, in ms. */
  readonly millis: number
  /** Each half of the round trip takes up to `jitterMillis / 2` more, drawn uniformly. Default 0. */
  readonly jitterMillis?: number | undefined
  /** Seed of the jitter. Default 1. */
  readonly seed?: number | undefined
}

/**
 * Wraps a handler so that each call waits half a round trip, runs, and waits the other half.
 * The first half and the handler run apart from the caller: interrupting the caller leaves the
 * request to arrive and be counted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const around = (
  options: LatencyOptions | undefined
): (<A, E, R>(handle: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) => {
  if (options === undefined || (options.millis <= 0 && (options.jitterMillis ?? 0) <= 0)) return (handle) => handle
  const prng = Prng.make(options.seed ?? 1)
  const base = Math.max(0, options.millis) / 2
  const jitter = Math.max(0, options.jitterMillis ?? 0) / 2
  // Drawn when the request enters, so the sequence of delays depends only on the order of requests.
  // Whole milliseconds: a fractional TestClock would give fractional timestamps.
  const half = () => Duration.millis(Math.round(base + prng.next() * jitter))
  return (handle) =>
    Effect.suspend(() => {
      const there = half()
      const back = half()
      return Effect.forkDaemon(Effect.zipRight(Effect.sleep(there), handle)).pipe(
        Effect.flatMap(Fiber.join),
        Effect.zipLeft(Effect.sleep(back))
      )
    })
}
