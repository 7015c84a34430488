/**
 * What the fleet does, as Effect `Metric`s: export them with `@effect/opentelemetry` like any
 * other Effect metric, or read them with `Metric.value`. The client's own counters
 * (`BillsMetrics` of `@account-bills/core`: requests, 429s, retries, bills) count the fleet's
 * requests too (429s are `BillsMetrics.rateLimited`); the fleet adds its passes, the bills they stored, the waits for the shared
 * budget and each account's lag.
 *
 * @since 0.1.0
 */
import type { OperationName } from "@account-bills/core"
import * as Metric from "effect/Metric"

/**
 * Passes run, tagged `outcome` (`done`, `more`: stopped at the page bound, `failed`).
 *
 * @since 0.1.0
 * @category metrics
 */
export const passes = Metric.counter("account_bills_fleet_passes", {
  description: "passes of an account run by this runner",
  incremental: true
})

/**
 * Bills the passes added to the store, tagged `kind` (funding, spot, contract), counted as each
 * page commits: a pass cut short (its account's shard moved to another runner) counts what it kept.
 *
 * @since 0.1.0
 * @category metrics
 */
export const bills = Metric.counter("account_bills_fleet_bills", {
  description: "bills the passes added to the store, per kind",
  incremental: true
})

/**
 * Requests the passes sent, tagged `kind`, counted as each leaves.
 *
 * @since 0.1.0
 * @category metrics
 */
export const requests = Metric.counter("account_bills_fleet_requests", {
  description: "requests the passes sent, per kind",
  incremental: true
})

/**
 * Grants of the per-address budget that had to wait, tagged `operation`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const budgetWaits = Metric.counter("account_bills_fleet_budget_waits", {
  description: "grants of the per-address budget that had to wait",
  incremental: true
})

/**
 * Per account (`account` tag) and kind (`kind` tag): now − the end of the window the store is
 * known to hold completely, in milliseconds (now − when the account was added, before its first
 * finished walk); a runner's `/metrics` sets it at each scrape for the accounts it holds, and
 * has no series of an account it does not hold or that was removed.
 *
 * @since 0.1.0
 * @category metrics
 */
export const lag = Metric.gauge("account_bills_fleet_lag_millis", {
  description: "now minus the end of the window the store holds completely, per account and kind"
})

/**
 * Per account (`account` tag) and kind (`kind` tag): the end of the window the store is known to
 * hold completely, epoch milliseconds, after each pass. `lag` is now − this: an exporter that
 * refreshes `lag` from it at each collection (`FleetObservability.refreshLag`) shows an account
 * whose passes stopped falling behind, where a gauge set only by passes would stand still.
 *
 * @since 0.1.0
 * @category metrics
 */
export const coveredTo = Metric.gauge("account_bills_fleet_covered_to_millis", {
  description: "end of the window the store holds completely (epoch ms), per account and kind"
})

/**
 * Per account (`account` tag): since when (epoch milliseconds) its passes fail, the earliest of
 * its kinds; 0 while they do not. Set at each collection by the runner that holds the account,
 * from the account's row, so an account that has failed since it was added has it too.
 *
 * @since 0.2.0
 * @category metrics
 */
export const failingSince = Metric.gauge("account_bills_fleet_failing_since_millis", {
  description: "since when (epoch ms) the account's passes fail, 0 while they do not, per account"
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
