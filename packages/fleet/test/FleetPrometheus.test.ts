/**
 * The runners' metrics as a real Prometheus sees them: two `bills fleet run` processes with
 * `--metrics-port`, scraped every second by Debian's `/usr/bin/prometheus` on loopback, and
 * everything asserted through Prometheus's HTTP query API (no scraper is mocked). Every series
 * of `FleetMetrics`, `BillsMetrics` and `ClusterMetrics` is there for both runners (the per-account
 * ones for every account); an account removed from the fleet loses its series; `up` of a runner
 * drops to 0 once it is SIGKILLed. `/healthz` and `/readyz` answer 200 on a runner that holds
 * its shards.
 */
import * as fs from "node:fs"
import { BillKind } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetAccounts } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { prometheusBin, type Sample, scopedPrometheus } from "./support/prometheus.js"
import { until } from "./support/until.js"

const accounts = 3
const day = 86_400_000

const credentialsOf = (i: number) => ({ apiKey: `prom-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `prom-${i}`

/**
 * Every series each runner must show. The per-account gauges are a runner's only once it has
 * passed an account, and the hash ring may give one runner every account: they are asked of the
 * fleet, per account and kind.
 */
const perAccount = ["account_bills_fleet_lag_millis", "account_bills_fleet_covered_to_millis"]
const series = [
  "account_bills_fleet_passes_total",
  "account_bills_fleet_bills_total",
  "account_bills_fleet_requests_total",
  "account_bills_fleet_budget_waits_total",
  "account_bills_requests_total",
  "account_bills_rate_limited_total",
  "account_bills_retries_total",
  "account_bills_bills_total",
  "effect_cluster_runners",
  "effect_cluster_runners_healthy",
  "effect_cluster_shards",
  "effect_cluster_entities"
]

describe.skipIf(postgresUrl === undefined || redisUrl === undefined || !fs.existsSync(prometheusBin))(
  "the runners' metrics in a real Prometheus",
  () => {
    it.live(
      "every series of both runners, a removed account's series gone, up = 0 for a killed runner",
      () =>
        Effect.gen(function* () {
          const { db, exchange, database } = yield* seededFleet({
            accounts,
            labelOf,
            credentialsOf,
            perAddress: { limit: 20, windowMillis: 1000 },
            exchangeOf: (i, now) => ({
              generate: {
                seed: 300 + i,
                funding: 30 + 5 * i,
                spot: 40 + 3 * i,
                startMillis: now - 2 * day,
                endMillis: now - 60_000
              }
            })
          })

          const env = { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
          const ports = yield* freePorts(4)
          const [metricsPorts, clusterPorts] = [ports.slice(0, 2), ports.slice(2)]
          const runners = yield* Effect.forEach([0, 1], (i) =>
            scopedBills(
              `r${i}`,
              [
                "run",
                "--db",
                db,
                "--redis",
                redisUrl ?? "",
                "--ip-rps",
                "20",
                "--port",
                String(clusterPorts[i]),
                "--metrics-port",
                String(metricsPorts[i]),
                "--interval",
                "2s"
              ],
              env
            )
          )
          const targets = metricsPorts.map((port) => `127.0.0.1:${port}`)
          const prometheus = yield* scopedPrometheus(targets)
          const instances = (samples: ReadonlyArray<Sample>) => new Set(samples.map((each) => each.metric.instance))
          const stderr = () => runners.map((runner) => `${runner.name}: ${runner.stderr().slice(-2_000)}`).join("\n")

          // Both runners up and ready: each holds some of the 64 shards.
          yield* until("both runners scraped", 60_000, async () => {
            const up = await prometheus.query('up{job="account-bills-fleet"} == 1')
            return instances(up).size === 2
          }).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(stderr()))))
          yield* until("both runners ready", 60_000, async () => {
            const codes = await Promise.all(
              targets.map((target) => fetch(`http://${target}/readyz`).then((response) => response.status))
            )
            return codes.every((code) => code === 200)
          }).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(stderr()))))
          for (const target of targets) {
            expect((yield* Effect.promise(() => fetch(`http://${target}/healthz`))).status).toBe(200)
          }

          // Every account passed (its lag known), every series of both runners in Prometheus.
          yield* until("the lag of every account and kind", 60_000, async () => {
            const lag = await prometheus.query("count by (account, kind) (account_bills_fleet_lag_millis)")
            return lag.length === accounts * BillKind.literals.length
          }).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(stderr()))))
          const missing: Array<string> = []
          yield* until("every series of both runners", 20_000, async () => {
            missing.length = 0
            for (const name of series) {
              const found = instances(await prometheus.query(name))
              if (found.size !== 2) missing.push(`${name} (${[...found].join(", ")})`)
            }
            for (const name of perAccount) {
              const found = await prometheus.query(`count by (account, kind) (${name})`)
              if (found.length !== accounts * BillKind.literals.length)
                missing.push(`${name} (${found.length} accounts and kinds)`)
            }
            return missing.length === 0
          }).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(`missing: ${missing.join("; ")}`))))
          // The passes stored bills and sent requests (a lag series exists from the moment an
          // account is added, so its presence says nothing of a pass); no series is labelled per request.
          yield* until("bills stored", 60_000, async () => {
            const stored = await prometheus.query("sum(account_bills_fleet_bills_total)")
            return (stored[0]?.value ?? 0) > 0
          }).pipe(
            Effect.tapDefect(() =>
              Effect.promise(async () => {
                const passes = await prometheus.query("sum by (instance, outcome) (account_bills_fleet_passes_total)")
                const sent = await prometheus.query("sum by (instance) (account_bills_requests_total)")
                const show = (samples: ReadonlyArray<Sample>) =>
                  samples.map((each) => `${JSON.stringify(each.metric)}=${each.value}`).join(", ")
                console.error(`passes: ${show(passes)}\nrequests: ${show(sent)}\n${stderr()}`)
              })
            )
          )
          const labels = yield* Effect.promise(() => prometheus.query('{job="account-bills-fleet"}'))
          const labelNames = new Set(labels.flatMap((each) => Object.keys(each.metric)))
          expect([...labelNames].filter((name) => /request|key|secret|url/i.test(name))).toEqual([])

          // An account removed from the fleet has no series any more: its alert clears.
          const removed = labelOf(accounts - 1)
          yield* Effect.flatMap(FleetAccounts, (fleet) => fleet.remove(removed)).pipe(Effect.provide(database))
          yield* until("the removed account's series gone", 20_000, async () => {
            const samples = await prometheus.query(`account_bills_fleet_lag_millis{account="${removed}"}`)
            return samples.length === 0
          })

          // A runner SIGKILLed: Prometheus says it is down.
          const killed = runners[1]
          killed?.proc.kill("SIGKILL")
          yield* until("up = 0 for the killed runner", 20_000, async () => {
            const up = await prometheus.query(`up{instance="${targets[1]}"}`)
            return up.length === 1 && up[0]?.value === 0
          })
          // The other runner stays up (a scrape on a loaded machine may miss its timeout once).
          yield* until("up = 1 for the live runner", 10_000, async () => {
            const alive = await prometheus.query(`up{instance="${targets[0]}"}`)
            return alive[0]?.value === 1
          })
        }).pipe(Effect.scoped),
      150_000
    )
  }
)
