/**
 * A runner seen from outside: its metrics for Prometheus, its health and readiness for a
 * supervisor, and its traces and metrics over OTLP.
 *
 * - `layerServer` serves `/metrics` (the Prometheus text format: every Effect `Metric` of the
 *   process, so `FleetMetrics`, the client's `BillsMetrics` and `@effect/cluster`'s
 *   `ClusterMetrics`), `/healthz` (200 while the process runs) and `/readyz` (200 when every
 *   readiness check passes, 503 with the reasons otherwise) on a port of its own.
 * - `layerOtlp` sends traces and metrics to `OTEL_EXPORTER_OTLP_ENDPOINT` when it is set, with
 *   `service.name` `account-bills-fleet` (or `OTEL_SERVICE_NAME`).
 *
 * The text format is written by OpenTelemetry's own Prometheus serializer
 * (`@opentelemetry/exporter-prometheus`), fed by `@effect/opentelemetry`'s producer, which reads
 * Effect's metric registry: the same bridge serves the OTLP path, and no exposition format is
 * written by hand here.
 *
 * @since 0.1.0
 */
import { BillKind, BillsMetrics } from "@account-bills/core"
import { BillsStore } from "@account-bills/store"
import * as ClusterMetrics from "@effect/cluster/ClusterMetrics"
import * as EntityId from "@effect/cluster/EntityId"
import { Sharding } from "@effect/cluster/Sharding"
import * as ShardId from "@effect/cluster/ShardId"
import * as Metrics from "@effect/opentelemetry/Metrics"
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as Resource from "@effect/opentelemetry/Resource"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import type { MetricData, MetricProducer } from "@opentelemetry/sdk-metrics"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricKeyType from "effect/MetricKeyType"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Http from "node:http"
import { AddressBudget } from "./AddressBudget.js"
import { FleetAccounts } from "./FleetAccounts.js"
import { entityIdOf } from "./FleetEntity.js"
import * as FleetMetrics from "./FleetMetrics.js"
import { isWatched } from "./internal/watchedKinds.js"

/**
 * The `service.name` of the fleet's runners, unless `OTEL_SERVICE_NAME` says another.
 *
 * @since 0.1.0
 * @category constants
 */
export const serviceName = "account-bills-fleet"

/**
 * Where a runner serves its metrics and probes.
 *
 * @since 0.1.0
 * @category models
 */
export interface MetricsServerOptions {
  /** The port of `/metrics`, `/healthz` and `/readyz`; 0 picks a free one. */
  readonly port: number
  /**
   * The address to listen on. Default `127.0.0.1`: the metrics name the fleet's accounts, so
   * they are served beyond the machine only when asked (`0.0.0.0` for a scraper elsewhere).
   */
  readonly host?: string | undefined
}

/**
 * The metrics server cannot listen (the port is taken, the address is not this machine's).
 *
 * @since 0.1.0
 * @category errors
 */
export class MetricsServerUnavailable extends Schema.TaggedError<MetricsServerUnavailable>(
  "@account-bills/fleet/MetricsServerUnavailable"
)("MetricsServerUnavailable", { host: Schema.String, port: Schema.Number, reason: Schema.String }) {
  override get message(): string {
    return `cannot serve metrics on ${this.host}:${this.port}: ${this.reason}`
  }
}

/**
 * One condition of readiness: it succeeds, or fails with the reason, said in `/readyz`'s body.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReadinessCheck {
  readonly name: string
  readonly check: Effect.Effect<void, string>
}

/** The name of `FleetMetrics.coveredTo`, whose series `refreshLag` finds in the registry. */
const coveredToName = "account_bills_fleet_covered_to_millis"

/**
 * Sets `FleetMetrics.lag` of every account and kind this process has passed to now − its
 * `FleetMetrics.coveredTo`. A pass sets the lag when it ends; an account whose passes stall (its
 * exchange does not answer) or stop (it was removed) would otherwise show the lag of its last
 * pass for ever. Run before each collection.
 *
 * @since 0.1.0
 * @category metrics
 */
export const refreshLag: Effect.Effect<void> = Effect.gen(function* () {
  const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
  const pairs = yield* Metric.snapshot
  for (const pair of pairs) {
    if (pair.metricKey.name !== coveredToName || !MetricState.isGaugeState(pair.metricState)) continue
    if (!MetricKeyType.isGaugeKey(pair.metricKey.keyType)) continue
    const account = pair.metricKey.tags.find((tag) => tag.key === "account")?.value
    const kind = pair.metricKey.tags.find((tag) => tag.key === "kind")?.value
    if (account === undefined || kind === undefined) continue
    yield* Metric.set(
      FleetMetrics.lag.pipe(Metric.tagged("account", account), Metric.tagged("kind", kind)),
      now - Number(pair.metricState.value)
    )
  }
})

/**
 * The shards of a runner's groups, as the cluster numbers them.
 *
 * @since 0.2.0
 * @category models
 */
export interface ShardLayout {
  readonly groups: ReadonlyArray<string>
  readonly shardsPerGroup: number
}

const shardIdsOf = (shards: ShardLayout): ReadonlyArray<ShardId.ShardId> =>
  shards.groups.flatMap((group) => Array.from({ length: shards.shardsPerGroup }, (_, i) => ShardId.make(group, i + 1)))

/** The series that name an account: a runner shows them only for the accounts it holds. */
const perAccountNames: ReadonlySet<string> = new Set([
  "account_bills_fleet_lag_millis",
  coveredToName,
  "account_bills_fleet_failing_since_millis"
])

/**
 * Sets, for every account whose shard this runner holds, its lag and covered-to per kind (the
 * lag from when it was added, before its first finished walk) and since when it fails; sets
 * `effect_cluster_shards` to the shards held now (the cluster sets it when it acquires shards,
 * not when it hands them over). Answers the accounts it holds, whose series are the only
 * per-account ones to show: an account removed or handed over has none. Run before each
 * collection; on a database that does not answer, answers none (and the series keep their last
 * set).
 *
 * @since 0.2.0
 * @category metrics
 */
export const refreshAccounts = (
  shards: ShardLayout
): Effect.Effect<Option.Option<ReadonlySet<string>>, never, Sharding | FleetAccounts | BillsStore> =>
  Effect.gen(function* () {
    const sharding = yield* Sharding
    const accounts = yield* FleetAccounts
    const store = yield* BillsStore
    const group = shards.groups[0] ?? "default"
    const held = shardIdsOf(shards).filter((id) => sharding.hasShardId(id)).length
    yield* Metric.set(ClusterMetrics.shards, BigInt(held))
    const listed = yield* accounts.list
    const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const mine = listed.filter((account) =>
      sharding.hasShardId(sharding.getShardId(EntityId.make(entityIdOf(account.label)), group))
    )
    yield* Effect.forEach(
      mine,
      (account) =>
        Effect.gen(function* () {
          // Since when the kinds a check watches fail (internal/watchedKinds.ts).
          const since: Array<number> = []
          for (const kind of BillKind.literals) {
            const state = yield* store.state(account.label, kind)
            // A key the futures interface refuses has no futures account to fall behind in: its
            // refusal shows in status, and a lag that grows forever would only page for it.
            if (!isWatched(kind, state.covered !== undefined, account.errors[kind] !== undefined)) continue
            const failingSince = account.errorsSince[kind]
            if (failingSince !== undefined) since.push(failingSince)
            const tagged = (metric: Metric.Metric.Gauge<number>) =>
              metric.pipe(Metric.tagged("account", account.label), Metric.tagged("kind", kind))
            const to = state.covered?.to
            yield* Metric.set(tagged(FleetMetrics.lag), now - (to ?? account.addedAt))
            if (to !== undefined) yield* Metric.set(tagged(FleetMetrics.coveredTo), to)
          }
          yield* Metric.set(
            Metric.tagged(FleetMetrics.failingSince, "account", account.label),
            since.length === 0 ? 0 : Math.min(...since)
          )
        }),
      { concurrency: 4, discard: true }
    )
    return Option.some(new Set(mine.map((account) => account.label)) as ReadonlySet<string>)
  }).pipe(Effect.orElseSucceed(() => Option.none()))

/** How much a metric has counted: a histogram's observations, another's values. */
const weightOf = (metric: MetricData): number =>
  metric.dataPoints.reduce((sum: number, point: { readonly value: unknown }) => {
    const value = point.value
    return sum + (typeof value === "number" ? value : ((value as { readonly count?: number }).count ?? 0))
  }, 0)

/**
 * The producer's metrics as a scrape shows them: one metric per name (two copies of `effect` in
 * one process register some, `effect_fiber_lifetimes`, twice; the one that counted more is
 * kept), and the per-account series of the accounts in `held` alone, when it is known.
 */
const scraped = (inner: MetricProducer, held: () => Option.Option<ReadonlySet<string>>): MetricProducer => ({
  collect: async (options) => {
    const result = await inner.collect(options)
    const live = held()
    const scopeMetrics = result.resourceMetrics.scopeMetrics.map((scope) => {
      const byName = new Map<string, MetricData>()
      for (const metric of scope.metrics) {
        const seen = byName.get(metric.descriptor.name)
        if (seen === undefined || weightOf(metric) > weightOf(seen)) byName.set(metric.descriptor.name, metric)
      }
      const metrics = [...byName.values()].map((metric) =>
        Option.isNone(live) || !perAccountNames.has(metric.descriptor.name)
          ? metric
          : ({
              ...metric,
              dataPoints: metric.dataPoints.filter((point: { readonly attributes: Record<string, unknown> }) =>
                live.value.has(String(point.attributes.account))
              )
            } as MetricData)
      )
      return { ...scope, metrics }
    })
    return { ...result, resourceMetrics: { ...result.resourceMetrics, scopeMetrics } }
  }
})

/**
 * Registers every counter of the fleet and the client with each of its known tag values, at 0:
 * a series exists from the start (a rate over it works, an alert on its absence does not fire
 * for a runner that has simply not met a 429 yet).
 *
 * @since 0.1.0
 * @category metrics
 */
export const registerSeries: Effect.Effect<void> = Effect.gen(function* () {
  const operations = ["fundingBills", "spotBills", "contractBills"] as const
  const counters = [
    ...(["done", "more", "failed"] as const).map((outcome) => Metric.tagged(FleetMetrics.passes, "outcome", outcome)),
    ...BillKind.literals.flatMap((kind) => [
      Metric.tagged(FleetMetrics.bills, "kind", kind),
      Metric.tagged(FleetMetrics.requests, "kind", kind)
    ]),
    ...operations.flatMap((operation) => [
      FleetMetrics.forOperation(FleetMetrics.budgetWaits, operation),
      BillsMetrics.forOperation(BillsMetrics.requests, operation),
      BillsMetrics.forOperation(BillsMetrics.rateLimited, operation),
      BillsMetrics.forOperation(BillsMetrics.retries, operation),
      BillsMetrics.forOperation(BillsMetrics.bills, operation)
    ])
  ]
  // Reading a metric registers it without changing it.
  yield* Effect.forEach(counters, (counter) => Metric.value(counter), { discard: true })
})

/**
 * What runs before each collection: `refreshLag` alone, or `refreshAccounts`, whose answer says
 * which accounts' series to show.
 *
 * @since 0.2.0
 * @category models
 */
export type Refresh<R> = Effect.Effect<Option.Option<ReadonlySet<string>> | undefined, never, R>

/** How long the refresh before a collection may take: a scrape answers within its timeout (1 s in the tests). */
const refreshTimeout = Duration.millis(500)

/** The Prometheus exposition of the process's metrics, on each call. */
const prometheusText = <R>(refresh: Refresh<R>) =>
  Effect.gen(function* () {
    const exporter = new PrometheusExporter({ preventServerStart: true })
    let held: Option.Option<ReadonlySet<string>> = Option.none()
    yield* Metrics.registerProducer(
      scraped(yield* Metrics.makeProducer, () => held),
      () => exporter
    )
    // No `otel_scope_*` labels: every series comes from the one producer; `target_info` stays and
    // carries `service.name`.
    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
    return Effect.gen(function* () {
      // A scrape answers within its timeout: a database slow to answer leaves the last values.
      const refreshed = yield* refresh.pipe(
        Effect.timeout(refreshTimeout),
        Effect.orElseSucceed(() => undefined)
      )
      if (refreshed !== undefined) held = refreshed
      const collected = yield* Effect.tryPromise({
        try: () => exporter.collect(),
        catch: (cause) => (cause instanceof Error ? cause.message : String(cause))
      })
      return serializer.serialize(collected.resourceMetrics)
    })
  }).pipe(Effect.provide(Resource.layer({ serviceName })))

/** How long one readiness check may take: a probe answers within its own timeout. */
const checkTimeout = Duration.seconds(2)

/**
 * `/metrics`, `/healthz` and `/readyz` on `options.host` (default `127.0.0.1`) and
 * `options.port`, for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerServer = <R, R2 = never>(
  options: MetricsServerOptions,
  readiness: Effect.Effect<ReadonlyArray<ReadinessCheck>, never, R>,
  refresh: Refresh<R2> = Effect.as(refreshLag, undefined)
): Layer.Layer<never, MetricsServerUnavailable, R | R2> => {
  const host = options.host ?? "127.0.0.1"
  return Layer.unwrapScoped(
    Effect.gen(function* () {
      yield* registerSeries
      const metricsText = yield* prometheusText(refresh)
      const checks = yield* readiness
      const ready = Effect.forEach(
        checks,
        (each) =>
          each.check.pipe(
            Effect.timeoutFail({ duration: checkTimeout, onTimeout: () => "no answer within 2 s" }),
            Effect.match({ onFailure: (reason) => `${each.name}: ${reason}`, onSuccess: () => undefined })
          ),
        { concurrency: "unbounded" }
      ).pipe(Effect.map((results) => results.filter((result) => result !== undefined)))
      const router = HttpRouter.empty.pipe(
        HttpRouter.get(
          "/metrics",
          metricsText.pipe(
            Effect.map((text) =>
              HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
            ),
            Effect.catchAll((reason) => HttpServerResponse.text(`cannot collect: ${reason}\n`, { status: 500 }))
          )
        ),
        HttpRouter.get("/healthz", HttpServerResponse.text("ok\n")),
        HttpRouter.get(
          "/readyz",
          Effect.map(ready, (problems) =>
            problems.length === 0
              ? HttpServerResponse.text("ready\n")
              : HttpServerResponse.text(`not ready: ${problems.join("; ")}\n`, { status: 503 })
          )
        )
      )
      return HttpServer.serve(router).pipe(
        HttpServer.withLogAddress,
        Layer.provide(NodeHttpServer.layer(() => Http.createServer(), { port: options.port, host })),
        Layer.mapError(
          (error) =>
            new MetricsServerUnavailable({
              host,
              port: options.port,
              reason: error.cause instanceof Error ? error.cause.message : String(error.cause)
            })
        )
      )
    })
  )
}

/**
 * A runner's readiness: it holds at least one shard of its groups (a runner that holds none does
 * no work: it is joining, or there are more runners than shards), its PostgreSQL answers, and its
 * address budget's Redis, when it has one, answers.
 *
 * @since 0.1.0
 * @category readiness
 */
export const runnerReadiness = (
  shards: ShardLayout
): Effect.Effect<ReadonlyArray<ReadinessCheck>, never, Sharding | SqlClient.SqlClient | AddressBudget> =>
  Effect.gen(function* () {
    const sharding = yield* Sharding
    const sql = yield* SqlClient.SqlClient
    const budget = yield* AddressBudget
    const ids = shardIdsOf(shards)
    const held: ReadinessCheck = {
      name: "shards",
      check: Effect.suspend(() =>
        ids.some((id) => sharding.hasShardId(id)) ? Effect.void : Effect.fail("this runner holds no shard yet")
      )
    }
    const postgres: ReadinessCheck = {
      name: "postgres",
      check: sql`SELECT 1`.pipe(
        Effect.asVoid,
        Effect.mapError((error) => error.message)
      )
    }
    const ping = budget.ping
    const redis: ReadonlyArray<ReadinessCheck> =
      ping === undefined ? [] : [{ name: "redis", check: Effect.mapError(ping, (error) => error.message) }]
    return [held, postgres, ...redis]
  })

/**
 * Traces and metrics over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` and
 * `/v1/metrics` appended, as the OpenTelemetry convention has it), with `service.name`
 * `OTEL_SERVICE_NAME` or `name`; `OTEL_EXPORTER_OTLP_PROTOCOL` `http/json` or `http/protobuf`
 * (the default) and `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,…`) as the convention reads them.
 * Without the endpoint: nothing.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOtlp = (name: string = serviceName): Layer.Layer<never> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const endpoint = yield* Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT"))
      if (Option.isNone(endpoint)) return Layer.empty
      const service = yield* Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault(name))
      const protocol = yield* Config.literal(
        "http/protobuf",
        "http/json"
      )("OTEL_EXPORTER_OTLP_PROTOCOL").pipe(Config.withDefault("http/protobuf"))
      const headerText = yield* Config.redacted("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.option)
      const headers = Option.match(headerText, {
        onNone: () => ({}),
        onSome: (text) => headersOf(Redacted.value(text))
      })
      const base = endpoint.value.replace(/\/+$/, "")
      const resource = { serviceName: service }
      return Layer.mergeAll(
        OtlpTracer.layer({ url: `${base}/v1/traces`, resource, headers }),
        OtlpMetrics.layer({ url: `${base}/v1/metrics`, resource, headers }),
        Layer.effectDiscard(registerSeries),
        // No scrape refreshes the lag on this path: every 5 s, within each export's interval.
        Layer.scopedDiscard(Effect.forkScoped(Effect.repeat(refreshLag, Schedule.spaced(Duration.seconds(5)))))
      ).pipe(
        Layer.provide(protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
        Layer.provide(NodeHttpClient.layerUndici)
      )
    }).pipe(
      // A bad OTEL_* value is said once and leaves the runner without export, not without work.
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning(`OpenTelemetry export is off: ${error.message}`), Layer.empty)
      )
    )
  )

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs, comma-separated, values percent-encoded. */
const headersOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(",")
      .map((pair) => pair.split("="))
      .filter((parts) => parts.length >= 2 && (parts[0] ?? "").trim() !== "")
      .map((parts) => [(parts[0] ?? "").trim(), decodeURIComponent(parts.slice(1).join("=").trim())])
  )
