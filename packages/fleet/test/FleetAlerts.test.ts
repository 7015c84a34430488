/**
 * The series the fleet's alerts read, as a real Prometheus stores them, after a hand-over: one
 * runner holds every shard, a second joins and takes half of them. Then `sum(effect_cluster_shards)`
 * is the shard count (the runner that handed shards over says so), every account has its lag,
 * covered-to and failing-since series from exactly one runner, with the VALUES the store and the
 * account table hold: an account that never synced (its credentials are refused) is behind by
 * the time since it was added and failing since its first refused pass; `effect_fiber_lifetimes`
 * is exported once per runner.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetAccounts, FleetStatus } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { prometheusBin, scopedPrometheus } from "./support/prometheus.js"
import { scopedRunner } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redactedOf, redisUrl } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 3
const shards = 64
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `alert-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `alert-${i}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined || !fs.existsSync(prometheusBin))(
  "the series of the fleet's alerts in a real Prometheus",
  () => {
    it.live(
      "after a hand-over: shard sum, per-account lag, covered-to and failing-since against the store",
      () =>
        Effect.gen(function* () {
          const { db, exchange, database, current } = yield* seededFleet({
            accounts,
            labelOf,
            credentialsOf,
            perAddress: false,
            exchangeOf: (i, now) => ({
              generate: { seed: 500 + i, funding: 20, spot: 20, startMillis: now - day, endMillis: now - 60_000 }
            })
          })
          const ports = yield* freePorts(4)
          const targets = [ports[0], ports[1]].map((port) => `127.0.0.1:${port}`)
          const start = (i: number) =>
            scopedRunner(`a${i}`, {
              db,
              exchangeUrl: exchange.url,
              port: ports[2 + i],
              metricsPort: ports[i],
              interval: "1m"
            })
          const prometheus = yield* scopedPrometheus(targets)
          const sum = async (promql: string) => (await prometheus.query(promql))[0]?.value
          const first = yield* start(0)
          yield* until(
            "every shard on the first runner",
            60_000,
            async () => (await sum("sum(effect_cluster_shards)")) === shards
          )
          yield* until("the good accounts current", 60_000, () =>
            Effect.runPromise(current(true).pipe(Effect.map((ok) => ok)))
          )
          // Never synced: the exchange refuses its secret.
          const addedAt = Date.now()
          yield* Effect.flatMap(FleetAccounts, (fleet) =>
            fleet.add("never", redactedOf(credentialsOf(0), "wrong"))
          ).pipe(Effect.provide(database))
          const second = yield* start(1)
          const log = () => [first, second].map((runner) => runner.stderr().slice(-1_500)).join("\n")
          // The hand-over: both runners hold shards, and together no more than there are.
          yield* until("both runners holding shards", 90_000, async () => {
            const each = await prometheus.query("effect_cluster_shards > 0")
            return each.length === 2 && (await sum("sum(effect_cluster_shards)")) === shards
          }).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(log()))))

          const labels = [...Array.from({ length: accounts }, (_, i) => labelOf(i)), "never"]
          const checked: Array<string> = []
          yield* until("every account's series, one runner each, with the store's values", 60_000, async () => {
            checked.length = 0
            const rows = await Effect.runPromise(FleetStatus.all.pipe(Effect.provide(database), Effect.orDie))
            const now = Date.now()
            for (const label of labels) {
              const row = rows.find((each) => each.label === label)
              if (row === undefined) return false
              // The refused account's first pass, which the check below is about, may still be
              // on its way (its shard may have moved in the hand-over): its table and its series
              // would then agree on 0.
              if (label === "never" && row.funding.errorSince === null) {
                return checked.push("never: not refused yet") < 0
              }
              for (const kind of ["funding", "spot"] as const) {
                const lag = await prometheus.query(`account_bills_fleet_lag_millis{account="${label}",kind="${kind}"}`)
                if (lag.length !== 1) return checked.push(`${label} ${kind}: ${lag.length} lag series`) < 0
                const coveredTo = row[kind].coveredTo
                // The lag is now − covered-to (now − added, before a first walk), as of its scrape.
                const expected = now - (coveredTo ?? row.addedAt)
                const value = lag[0]?.value ?? Number.NaN
                if (!(value <= expected && value >= expected - 5_000)) {
                  return checked.push(`${label} ${kind}: lag ${value}, expected about ${expected}`) < 0
                }
                if (coveredTo !== null) {
                  const to = await sum(`account_bills_fleet_covered_to_millis{account="${label}",kind="${kind}"}`)
                  if (to !== coveredTo)
                    return checked.push(`${label} ${kind}: covered to ${to}, store ${coveredTo}`) < 0
                }
              }
              const since = await prometheus.query(`account_bills_fleet_failing_since_millis{account="${label}"}`)
              const failing = Math.min(row.funding.errorSince ?? Infinity, row.spot.errorSince ?? Infinity)
              const expected = failing === Infinity ? 0 : failing
              if (since.length !== 1 || since[0]?.value !== expected) {
                return checked.push(`${label}: failing since ${since[0]?.value}, table ${expected}`) < 0
              }
            }
            return true
          }).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(`alerts: ${checked.join("; ")}`))))
          const refusedAt = yield* Effect.map(
            FleetStatus.all,
            (rows) => rows.find((row) => row.label === "never")?.funding.errorSince
          ).pipe(Effect.provide(database), Effect.orDie)
          console.info(`alerts: never refused ${(refusedAt ?? Number.NaN) - addedAt} ms after it was added`)
          const never = yield* Effect.promise(() =>
            prometheus.query('account_bills_fleet_failing_since_millis{account="never"}')
          )
          expect(never[0]?.value ?? 0).toBeGreaterThan(0)
          expect(yield* Effect.promise(() => sum("sum(effect_cluster_shards)"))).toBe(shards)

          // One histogram of fiber lifetimes per runner, not two.
          for (const target of targets) {
            const text = yield* Effect.promise(() =>
              fetch(`http://${target}/metrics`).then((response) => response.text())
            )
            expect(text.split("\n").filter((line) => line.startsWith("effect_fiber_lifetimes_count"))).toHaveLength(1)
          }
        }).pipe(Effect.scoped),
      240_000
    )
  }
)
