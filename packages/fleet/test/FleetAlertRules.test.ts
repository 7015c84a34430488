/**
 * The alert rules the fleet ships (`prometheus/alerts.yml`), end to end: a real Prometheus loads
 * them, scrapes two real runners, and the alert of an account whose credentials the exchange
 * refuses reaches `firing` in its `/api/v1/alerts`, naming the account; the account that syncs
 * raises none. The file is loaded as shipped but for its `for:` durations, shortened to a second
 * (the expressions, labels and annotations are the file's own); every rule evaluates without
 * error, and every series the rules read is served by both runners under the names they use.
 * The rules' unit tests are `prometheus/alerts.test.yml` (`promtool test rules`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetAccounts, FleetStatus } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { type Alert, prometheusBin, scopedPrometheus } from "./support/prometheus.js"
import { root, scopedRunner } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redactedOf, redisUrl } from "./support/services.js"
import { until } from "./support/until.js"

const rulesFile = path.join(root, "packages/fleet/prometheus/alerts.yml")
const credentialsOf = (i: number) => ({ apiKey: `rules-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const day = 86_400_000

/** The shipped rules with every `for:` a second: what a test can wait for. */
const rulesForTest = (text: string): string => {
  const shortened = text.replace(/^(\s+for:\s*)\S+\s*$/gm, "$11s")
  // The test is about the file as shipped: it has `for:` lines, and nothing else changed.
  expect(shortened).not.toBe(text)
  expect(shortened.replace(/^\s+for:.*$/gm, "")).toBe(text.replace(/^\s+for:.*$/gm, ""))
  return shortened
}

/** The series the rules read that every runner serves. */
const perRunner = [
  "up",
  "effect_cluster_shards",
  "account_bills_rate_limited_total",
  "account_bills_fleet_budget_waits_total",
  "account_bills_requests_total"
]
/** The series the rules read that the runner holding an account serves for it. */
const perAccount = ["account_bills_fleet_lag_millis", "account_bills_fleet_failing_since_millis"]

describe.skipIf(postgresUrl === undefined || redisUrl === undefined || !fs.existsSync(prometheusBin))(
  "the fleet's alert rules in a real Prometheus",
  () => {
    it.live(
      "a refused account's FleetAccountFailing fires, naming it; the synced account raises nothing",
      () =>
        Effect.gen(function* () {
          const { db, exchange, database } = yield* seededFleet({
            accounts: 1,
            labelOf: () => "synced",
            credentialsOf,
            perAddress: false,
            exchangeOf: (i, now) => ({
              generate: { seed: 700 + i, funding: 20, spot: 20, startMillis: now - day, endMillis: now - 60_000 }
            })
          })
          // The exchange refuses its secret: every pass of it fails from the first.
          yield* Effect.flatMap(FleetAccounts, (fleet) =>
            fleet.add("refused", redactedOf(credentialsOf(0), "wrong"))
          ).pipe(Effect.provide(database))
          const ports = yield* freePorts(4)
          const targets = [ports[0], ports[1]].map((port) => `127.0.0.1:${port}`)
          const prometheus = yield* scopedPrometheus(targets, {
            rules: rulesForTest(fs.readFileSync(rulesFile, "utf8"))
          })
          const runners = yield* Effect.forEach([0, 1], (i) =>
            scopedRunner(`r${i}`, {
              db,
              exchangeUrl: exchange.url,
              port: ports[2 + i],
              metricsPort: ports[i],
              redis: { url: redisUrl ?? "", ipRps: 20 },
              interval: "1m"
            })
          )
          const log = () => runners.map((runner) => runner.stderr().slice(-1_500)).join("\n")
          let seen: ReadonlyArray<Alert> = []
          const failingOf = (account: string) =>
            seen.find((alert) => alert.labels.alertname === "FleetAccountFailing" && alert.labels.account === account)
          yield* until("FleetAccountFailing firing for the refused account", 90_000, async () => {
            seen = await prometheus.alerts()
            return failingOf("refused")?.state === "firing"
          }).pipe(
            Effect.tapDefect(() =>
              Effect.sync(() => console.error(`alerts: ${JSON.stringify(seen)}\nrunners:\n${log()}`))
            )
          )
          const refused = failingOf("refused")
          expect(refused?.labels).toEqual({
            alertname: "FleetAccountFailing",
            account: "refused",
            severity: "critical"
          })
          expect(refused?.annotations.summary).toMatch(/^Account refused fails since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/)
          expect(refused?.annotations.description).toContain("bills fleet add --label refused")
          // The synced account: current, and no alert names it (failing or behind).
          const synced = FleetStatus.all.pipe(
            Effect.map((rows) => rows.find((row) => row.label === "synced")),
            Effect.provide(database),
            Effect.orDie
          )
          yield* until("the synced account current", 60_000, async () => {
            const row = await Effect.runPromise(synced)
            return row !== undefined && row.funding.coveredTo !== null && row.spot.coveredTo !== null
          })
          const row = yield* synced
          expect([row?.funding.error, row?.spot.error]).toEqual([null, null])
          seen = yield* Effect.promise(() => prometheus.alerts())
          expect(seen.filter((alert) => alert.labels.account === "synced")).toEqual([])
          // The refused account is failing, so not also "behind".
          expect(
            seen.filter(
              (alert) => alert.labels.alertname === "FleetAccountBehind" && alert.labels.account === "refused"
            )
          ).toEqual([])

          // Every rule of the file loaded and evaluates without error.
          const rules = yield* Effect.promise(() => prometheus.rules())
          expect(rules.map((rule) => rule.name).sort()).toEqual([
            "FleetAccountBehind",
            "FleetAccountFailing",
            "FleetAddressBudgetSaturated",
            "FleetRateLimited",
            "FleetRunnerDown",
            "FleetShardsUnheld"
          ])
          for (const rule of rules) expect(rule.health, `${rule.name}: ${rule.lastError ?? ""}`).toBe("ok")
          // The names and labels the rules read are the runners' own.
          for (const name of perRunner) {
            const instances = yield* Effect.promise(() =>
              prometheus.query(`count by (instance) ({__name__="${name}", job="account-bills-fleet"})`)
            )
            expect(instances.map((sample) => sample.metric.instance).sort(), name).toEqual([...targets].sort())
          }
          for (const name of perAccount) {
            const accounts = yield* Effect.promise(() => prometheus.query(`count by (account) (${name})`))
            expect(accounts.map((sample) => sample.metric.account).sort(), name).toEqual(["refused", "synced"])
          }
        }).pipe(Effect.scoped),
      180_000
    )
  }
)
