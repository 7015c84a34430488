/**
 * Counters of what the client does, per operation (`operation` tag: `fundingBills` or
 * `spotBills`), as Effect `Metric`s: export them with `@effect/opentelemetry` like any other
 * Effect metric, or read them with `Metric.value`.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"
import type { OperationName } from "./Operation.js"

/**
 * Attempts sent to the exchange, retries included.
 *
 * @since 0.1.0
 * @category metrics
 */
export const requests = Metric.counter("account_bills_requests", {
  description: "attempts sent to the exchange, retries included",
  incremental: true
})

/**
 * Attempts the exchange refused for its rate limit (HTTP 429 or its rate-limit code).
 *
 * @since 0.1.0
 * @category metrics
 */
export const rateLimited = Metric.counter("account_bills_rate_limited", {
  description: "attempts the exchange refused for its rate limit",
  incremental: true
})

/**
 * Attempts after the first of a call: retries of transient failures.
 *
 * @since 0.1.0
 * @category metrics
 */
export const retries = Metric.counter("account_bills_retries", {
  description: "attempts after the first of a call",
  incremental: true
})

/**
 * Bills the streams emitted.
 *
 * @since 0.1.0
 * @category metrics
 */
export const bills = Metric.counter("account_bills_bills", {
  description: "bills the streams emitted",
  incremental: true
})

/**
 * A counter tagged with the operation it counts.
 *
 * @since 0.1.0
 * @category combinators
 */
export const forOperation = (
  metric: Metric.Metric.Counter<number>,
  operation: OperationName
): Metric.Metric.Counter<number> => Metric.tagged(metric, "operation", operation)
