/**
 * Which failures are worth another attempt, how long to wait before it, and the one extra
 * attempt after the exchange rejected our clock.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import type { BillsConfigShape } from "../BillsConfig.js"
import type { BillsError } from "../Errors.js"
import type { ClockWaitsShape } from "./clockWaits.js"

/** The part of the settings the retry loop reads. */
export type RetrySettings = Pick<BillsConfigShape, "maxAttempts" | "retryBaseDelay" | "maxRetryDelay">

/**
 * Transient: the same request may well succeed later. Authentication, permission, parameter
 * and history errors never are: repeating them only spends permits.
 */
export const isTransient = (error: BillsError): boolean => {
  switch (error._tag) {
    case "BillsTransportError":
      return true
    case "BillsApiError":
      return error.reason === "RateLimited" || error.reason === "Maintenance" || error.reason === "ServerError"
    case "BillsDecodeError":
      // A body that is not JSON comes from a gateway page or a connection cut mid-body, which the
      // next attempt usually does not meet; the operations are reads, so repeating is safe. A 4xx
      // page (say a 404 from a wrong base URL) is the request's own fault and is not repeated. A
      // well-formed JSON answer of another shape, or a malformed record in one, comes back the
      // same to the same request: repeating it only spends permits.
      return error.stage === "Json" && !(error.status >= 400 && error.status < 500 && error.status !== 408)
    default:
      return false
  }
}

/** The exchange rejected the request's timestamp: our clock is off from its clock. */
export const isClockSkew = (error: BillsError): boolean =>
  error._tag === "BillsApiError" && error.reason === "TimestampExpired"

/**
 * The wait before retry number `retry` (1-based): exponential backoff with equal jitter (half
 * fixed, half random) capped at `maxRetryDelay`, and never shorter than a `Retry-After`. None
 * when `Retry-After` asks for more than `maxRetryDelay`: the call then fails at once with the
 * error, which carries the requested wait, rather than hold the caller longer than configured.
 */
export const retryDelay = (
  retry: number,
  error: BillsError,
  settings: RetrySettings
): Effect.Effect<Option.Option<Duration.Duration>> => {
  const cap = Duration.toMillis(settings.maxRetryDelay)
  const asked = error._tag === "BillsApiError" ? (error.retryAfterMillis ?? 0) : 0
  if (asked > cap) return Effect.succeedNone
  return Effect.map(Random.next, (jitter) => {
    const ceiling = Math.min(cap, Duration.toMillis(settings.retryBaseDelay) * 2 ** (retry - 1))
    const backoff = ceiling / 2 + (ceiling / 2) * jitter
    return Option.some(Duration.millis(Math.round(Math.max(backoff, asked))))
  })
}

/**
 * What the retry loop needs to repair a rejected clock.
 */
export interface ClockRepair {
  /** Changes whenever the offset is measured; read before each attempt. */
  readonly generation: Effect.Effect<number>
  /** Measures the offset and sets it, unless it was measured after `generation` was read. */
  readonly resyncSince: (generation: number) => Effect.Effect<void, BillsError>
}

/**
 * Runs `attempt` up to `maxAttempts` times while it fails transiently; the caller gets the
 * last failure. On a rejected timestamp it repairs the clock and tries once more, at once and
 * outside the count (so a call makes at most `maxAttempts + 1` attempts). Every attempt re-runs
 * the whole effect, so it takes a new permit and a new signature. `attempt` is told its
 * ordinal in the call (1 for the first, the clock's extra attempt included), so that it can
 * count itself as a retry.
 *
 * Named apart from `@effect/platform`'s `HttpClient.retryTransient`, which retries on its own
 * notion of transient and knows nothing of the exchange's clock.
 *
 * `waits` wraps each pause (the testing kit guards it against a clock nobody moves).
 */
export const retryExchangeCall = <A>(
  attempt: (ordinal: number) => Effect.Effect<A, BillsError>,
  settings: RetrySettings,
  options: { readonly clock?: ClockRepair | undefined; readonly waits?: ClockWaitsShape | undefined } = {}
): Effect.Effect<A, BillsError> => {
  const { clock, waits } = options
  const pause = (retry: number, delay: Duration.Duration, error: BillsError): Effect.Effect<void> =>
    waits === undefined
      ? Effect.sleep(delay)
      : waits.around({ _tag: "RetryPause", retry, delay, error })(Effect.sleep(delay))
  const loop = (attemptNumber: number, clockRepaired: boolean): Effect.Effect<A, BillsError> =>
    Effect.flatMap(clock?.generation ?? Effect.succeed(0), (generation) =>
      // The clock's extra attempt is outside the count but still an attempt of the call.
      Effect.catchAll(attempt(clockRepaired ? attemptNumber + 1 : attemptNumber), (error) => {
        if (clock !== undefined && !clockRepaired && isClockSkew(error)) {
          return clock.resyncSince(generation).pipe(
            Effect.matchEffect({
              // The rejected timestamp says more about the call than why the clock could not be read.
              onFailure: (syncError) =>
                Effect.zipRight(
                  Effect.logDebug("could not measure the exchange's clock", syncError.message),
                  Effect.fail(error)
                ),
              onSuccess: () => loop(attemptNumber, true)
            })
          )
        }
        if (attemptNumber >= settings.maxAttempts || !isTransient(error)) return Effect.fail(error)
        return Effect.flatMap(
          retryDelay(attemptNumber, error, settings),
          Option.match({
            onNone: () => Effect.fail(error),
            onSome: (delay) =>
              Effect.zipRight(pause(attemptNumber, delay, error), loop(attemptNumber + 1, clockRepaired))
          })
        )
      })
    )
  return loop(1, false)
}
