/**
 * What a runner's `/metrics` says, value by value, read in the test's own process (so that a
 * mutation of `FleetObservability` is the code that answers): a runner serves its metrics before
 * any account is added (every counter at 0, no account's series), then three accounts are added
 * and passed (one whose spot and futures interfaces refuse the key), and each account's lag,
 * covered-to and failing-since are compared with what the store holds. A second runner in the
 * same process, holding no shard, shows none of the accounts' series the process's registry
 * holds; an account removed loses its series.
 */
import { BillKind } from "@account-bills/core"
import { FakeFault } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as TestClock from "effect/TestClock"
import { FleetAccounts, FleetMetrics, FleetObservability, FleetStatus } from "../src/index.js"
import { inProcessRunner, metricsText, oneReady, parseMetrics, readyz, type Sample } from "./support/inProcessRunner.js"
import { freePorts } from "./support/ports.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"
import { until } from "./support/until.js"

const labelOf = (i: number) => `mv-${i}`
const credentialsOf = (i: number) => ({ apiKey: `mv-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
/** The account whose spot and futures interfaces refuse its key. */
const refused = labelOf(2)
/** How far the runner's clock (the database's) and a scrape's moment may be from the test's. */
const slackMillis = 1_000

/** Every counter a runner registers at 0, each series by its labels. */
const counters: ReadonlyArray<readonly [string, Readonly<Record<string, string>>]> = [
  ...["done", "more", "failed"].map((outcome) => ["account_bills_fleet_passes_total", { outcome }] as const),
  ...BillKind.literals.flatMap((kind) => [
    ["account_bills_fleet_bills_total", { kind }] as const,
    ["account_bills_fleet_requests_total", { kind }] as const
  ]),
  ...["fundingBills", "spotBills", "contractBills"].flatMap((operation) =>
    [
      "account_bills_fleet_budget_waits_total",
      "account_bills_requests_total",
      "account_bills_rate_limited_total",
      "account_bills_retries_total",
      "account_bills_bills_total"
    ].map((name) => [name, { operation }] as const)
  )
]

const perAccount = [
  "account_bills_fleet_lag_millis",
  "account_bills_fleet_covered_to_millis",
  "account_bills_fleet_failing_since_millis"
]

const find = (samples: ReadonlyArray<Sample>, name: string, labels: Readonly<Record<string, string>>) =>
  samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)
  )

/** The accounts a scrape shows series of. */
const accountsOf = (samples: ReadonlyArray<Sample>) =>
  [
    ...new Set(samples.filter((sample) => perAccount.includes(sample.name)).map((sample) => sample.labels.account))
  ].sort()

describe.skipIf(postgresUrl === undefined)("a runner's /metrics, value by value", () => {
  it.live(
    "counters at 0 before the first pass; lag, covered-to and failing-since as the store says; only held accounts; a removed account's series gone",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database, add } = yield* seededFleet({
          accounts: 3,
          labelOf,
          credentialsOf,
          perAddress: false,
          added: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 90 + i, funding: 30, spot: 20, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        const fake = exchange.exchanges.get(credentialsOf(2).apiKey)
        if (fake === undefined) return yield* Effect.dieMessage("no exchange")
        for (const operation of ["spotBills", "contractBills"] as const) {
          yield* fake.failNext(FakeFault.Code({ status: 403, code: "40014", msg: "Incorrect permissions" }), {
            operation,
            count: 1_000_000
          })
        }
        const [portA = 0, portB = 0, metricsA = 0, metricsB = 0] = yield* freePorts(4)
        const runner = (port: number, metrics: number) =>
          inProcessRunner({ db, exchangeUrl: exchange.url, port, metrics, interval: "10 minutes" })
        yield* Layer.build(runner(portA, metricsA))
        yield* until("runner A ready", 60_000, () => readyz(metricsA).then((probe) => probe.status === 200))

        // Before any account: every counter is there at 0, the shard held, no account's series.
        const empty = yield* metricsText(metricsA)
        const before = parseMetrics(empty)
        for (const [name, labels] of counters) {
          expect(
            find(before, name, labels).map((sample) => sample.value),
            `${name} ${JSON.stringify(labels)}`
          ).toEqual([0])
        }
        expect(accountsOf(before)).toEqual([])
        expect(find(before, "effect_cluster_shards", {}).map((sample) => sample.value)).toEqual([1])
        // One metric per name, each said once.
        const types = empty.split("\n").filter((line) => line.startsWith("# TYPE "))
        expect(new Set(types).size).toBe(types.length)
        expect(types.filter((line) => line.startsWith("# TYPE effect_fiber_lifetimes "))).toHaveLength(1)

        yield* add
        const status = FleetStatus.all.pipe(Effect.provide(database), Effect.orDie)
        yield* until("every account passed (the refused one failing)", 60_000, () =>
          Effect.runPromise(
            Effect.map(status, (rows) =>
              rows.every((row) =>
                row.label === refused
                  ? row.funding.coveredTo !== null && row.spot.errorSince !== null && row.contract.error !== null
                  : BillKind.literals.every((kind) => row[kind].coveredTo !== null)
              )
            )
          )
        )

        /** What is wrong in a scrape of `port`, compared with the store around it. */
        const problems = (port: number, labels: ReadonlyArray<string>) =>
          Effect.gen(function* () {
            const start = Date.now()
            const samples = parseMetrics(yield* metricsText(port))
            const end = Date.now()
            const rows = (yield* status).filter((row) => labels.includes(row.label))
            const wrong: Array<string> = []
            const say = (what: string, seen: ReadonlyArray<number>, expected: string) =>
              wrong.push(`${what}: ${JSON.stringify(seen)}, expected ${expected}`)
            if (JSON.stringify(accountsOf(samples)) !== JSON.stringify([...labels].sort()))
              say(`accounts ${JSON.stringify(accountsOf(samples))}`, [], JSON.stringify(labels))
            for (const row of rows) {
              for (const kind of BillKind.literals) {
                const tags = { account: row.label, kind }
                const lag = find(samples, "account_bills_fleet_lag_millis", tags).map((sample) => sample.value)
                const to = find(samples, "account_bills_fleet_covered_to_millis", tags).map((sample) => sample.value)
                if (row.label === refused && kind === "contract") {
                  // A key the futures interface refuses has no futures account to fall behind in.
                  if (lag.length + to.length > 0) say(`${row.label} contract series`, [...lag, ...to], "none")
                  continue
                }
                // The lag is now − covered-to (now − added, before a first walk), as of the scrape.
                const from = row[kind].coveredTo ?? row.addedAt
                const [low, high] = [start - from - slackMillis, end - from + slackMillis]
                if (lag.length !== 1 || (lag[0] ?? Number.NaN) < low || (lag[0] ?? Number.NaN) > high)
                  say(`${row.label} ${kind} lag`, lag, `within [${low}, ${high}]`)
                const covered = row[kind].coveredTo
                if (JSON.stringify(to) !== JSON.stringify(covered === null ? [] : [covered]))
                  say(`${row.label} ${kind} covered-to`, to, String(covered))
              }
              const failing = [row.funding.errorSince, row.spot.errorSince].filter((at) => at !== null)
              const since = find(samples, "account_bills_fleet_failing_since_millis", { account: row.label })
              const expected = failing.length === 0 ? 0 : Math.min(...failing)
              if (since.length !== 1 || since[0]?.value !== expected)
                say(
                  `${row.label} failing since`,
                  since.map((sample) => sample.value),
                  String(expected)
                )
            }
            return wrong
          })
        /** Waits until a scrape of `port` says what the store holds of `labels` (a pass may end between the two). */
        const agrees = (port: number, labels: ReadonlyArray<string>) =>
          Effect.suspend(() => {
            let last: ReadonlyArray<string> = []
            return until(`/metrics of ${port} as the store says`, 20_000, () =>
              Effect.runPromise(problems(port, labels)).then((wrong) => {
                last = wrong
                return wrong.length === 0
              })
            ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(last.join("\n")))))
          })
        const labels = [0, 1, 2].map(labelOf)
        yield* agrees(metricsA, labels)
        // The refused account is failing; the others not.
        expect(
          find(parseMetrics(yield* metricsText(metricsA)), "account_bills_fleet_failing_since_millis", {
            account: refused
          })[0]?.value
        ).toBeGreaterThan(0)

        // A second runner in this process: whichever of the two holds the shard shows the
        // accounts, the other none, though the process's registry holds their series.
        yield* Layer.build(runner(portB, metricsB))
        const probes = yield* oneReady([metricsA, metricsB])
        const [holder, idle] = probes[0]?.status === 200 ? [metricsA, metricsB] : [metricsB, metricsA]
        const idleSamples = parseMetrics(yield* metricsText(idle))
        expect(accountsOf(idleSamples)).toEqual([])
        expect(find(idleSamples, "effect_cluster_shards", {}).map((sample) => sample.value)).toEqual([0])
        yield* agrees(holder, labels)

        // A removed account has no series any more: its alert clears.
        yield* Effect.flatMap(FleetAccounts, (fleet) => fleet.remove(labelOf(1))).pipe(Effect.provide(database))
        yield* agrees(holder, [labelOf(0), refused])
      }).pipe(
        Effect.scoped,
        // The cluster warns of the runner that joins and leaves; nothing here reads it.
        Logger.withMinimumLogLevel(LogLevel.Error)
      ),
    180_000
  )
})

describe("refreshLag", () => {
  it.effect("sets each account and kind's lag to now − its covered-to, as of the clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(10_000_000)
      const tagged = (metric: Metric.Metric.Gauge<number>, account: string, kind: string) =>
        metric.pipe(Metric.tagged("account", account), Metric.tagged("kind", kind))
      yield* Metric.set(tagged(FleetMetrics.coveredTo, "lag-a", "funding"), 9_000_000)
      yield* Metric.set(tagged(FleetMetrics.coveredTo, "lag-b", "spot"), 4_000_000)
      // Series without an account or a kind name nothing to set a lag of.
      yield* Metric.set(Metric.tagged(FleetMetrics.coveredTo, "account", "lag-c"), 2_000_000)
      yield* Metric.set(Metric.tagged(FleetMetrics.coveredTo, "kind", "funding"), 3_000_000)
      yield* FleetObservability.refreshLag
      // The registry is the process's: the runner test before this one left its accounts' series
      // in it, so only this test's series (and any without an account) are looked at.
      const lags = (yield* Metric.snapshot)
        .filter((pair) => pair.metricKey.name === "account_bills_fleet_lag_millis")
        .map((pair) => Object.fromEntries(pair.metricKey.tags.map((tag) => [tag.key, tag.value])))
        .filter((tags) => tags.account === undefined || tags.account.startsWith("lag-"))
      expect(lags.sort((a, b) => String(a.account).localeCompare(String(b.account)))).toEqual([
        { account: "lag-a", kind: "funding" },
        { account: "lag-b", kind: "spot" }
      ])
      expect(yield* Metric.value(tagged(FleetMetrics.lag, "lag-a", "funding"))).toEqual(
        expect.objectContaining({ value: 1_000_000 })
      )
      expect(yield* Metric.value(tagged(FleetMetrics.lag, "lag-b", "spot"))).toEqual(
        expect.objectContaining({ value: 6_000_000 })
      )
      // A pair it was not asked of has no lag set.
      expect(yield* Metric.value(tagged(FleetMetrics.lag, "lag-a", "spot"))).toEqual(
        expect.objectContaining({ value: 0 })
      )
      yield* TestClock.adjust("1 minute")
      yield* FleetObservability.refreshLag
      expect(yield* Metric.value(tagged(FleetMetrics.lag, "lag-a", "funding"))).toEqual(
        expect.objectContaining({ value: 1_060_000 })
      )
    })
  )
})
