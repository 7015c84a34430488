/**
 * Which failures are worth another attempt, and how long to wait before it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type { BillsConfigShape } from "../BillsConfig.js"
import type { BillsError } from "../Errors.js"

/** Transient: the same request may well succeed later. Authentication and parameter errors never are. */
export const isTransient = (error: BillsError): boolean => {
  switch (error._tag) {
    case "BillsTransportError":
      return true
    case "BillsApiError":
      return error.reason === "RateLimited" || error.reason === "Maintenance" || error.reason === "ServerError"
    case "BillsDecodeError":
      // A body that is not an envelope at all is a broken or truncated response; bad records are not.
      return error.stage === "Envelope"
    default:
      return false
  }
}

/** Exponential backoff with equal jitter (half fixed, half random), capped; a longer `Retry-After` wins. */
const delayBefore = (retry: number, error: BillsError, config: BillsConfigShape): Effect.Effect<Duration.Duration> =>
  Effect.map(Random.next, (jitter) => {
    const ceiling = Math.min(
      Duration.toMillis(config.maxRetryDelay),
      Duration.toMillis(config.retryBaseDelay) * 2 ** (retry - 1)
    )
    const backoff = ceiling / 2 + (ceiling / 2) * jitter
    const asked = error._tag === "BillsApiError" ? (error.retryAfterMillis ?? 0) : 0
    return Duration.millis(Math.round(Math.max(backoff, asked)))
  })

/**
 * Runs `attempt` up to `config.maxAttempts` times while it fails transiently; the caller gets
 * the last failure. Every attempt re-runs the whole effect, so it takes a new permit and a
 * new signature.
 */
export const retryTransient = <A>(
  attempt: Effect.Effect<A, BillsError>,
  config: BillsConfigShape
): Effect.Effect<A, BillsError> => {
  const loop = (attemptNumber: number): Effect.Effect<A, BillsError> =>
    Effect.catchIf(
      attempt,
      (error) => attemptNumber < config.maxAttempts && isTransient(error),
      (error) =>
        Effect.flatMap(delayBefore(attemptNumber, error, config), (delay) =>
          Effect.zipRight(Effect.sleep(delay), loop(attemptNumber + 1))
        )
    )
  return loop(1)
}
