/**
 * The fleet as users run it: three `bills fleet run` processes on one address, sharing a Redis
 * budget below what the accounts could use together, against the loopback fleet exchange. One
 * runner is SIGKILLed in the middle of a pass, one SIGTERMed. Afterwards every account's store
 * equals the exchange field for field, the exchange refused nothing for its limits, and no two
 * runners ever held one account at once.
 */
import { SlidingWindow } from "@account-bills/core/testing"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetDatabase } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { handOvers, overlaps } from "./support/handOvers.js"
import { bills, type RunnerProcess } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = Number(process.env.FLEET_TEST_ACCOUNTS ?? 30)
const ipRps = 20
const day = 86_400_000

const credentialsOf = (i: number) => ({ apiKey: `key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `acct-${String(i).padStart(2, "0")}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a fleet of runner processes", () => {
  it.live(
    `3 runners, ${accounts} accounts, one shared address budget; one SIGKILLed mid-pass, one SIGTERMed`,
    () =>
      Effect.gen(function* () {
        const { db, exchange, current, exact } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: { limit: ipRps, windowMillis: 1000 },
          exchangeOf: (i, now) => ({
            generate: {
              seed: 100 + i,
              funding: 150 + 10 * i,
              spot: 250 + 7 * i,
              startMillis: now - 5 * day,
              endMillis: now - 60_000
            }
          })
        })

        const env = { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
        const ports = yield* freePorts(3)
        const runners: ReadonlyArray<RunnerProcess> = yield* Effect.acquireRelease(
          Effect.sync(() =>
            ports.map((port, i) =>
              bills(
                `r${i}`,
                [
                  "run",
                  "--db",
                  db,
                  "--redis",
                  redisUrl ?? "",
                  "--port",
                  String(port),
                  "--interval",
                  "2s",
                  "--ip-rps",
                  String(ipRps),
                  "--pages-per-pass",
                  "2"
                ],
                env
              )
            )
          ),
          (runners) =>
            Effect.promise(() => {
              for (const runner of runners) {
                if (runner.proc.exitCode === null && runner.proc.signalCode === null) runner.proc.kill("SIGKILL")
              }
              return Promise.all(runners.map((runner) => runner.exited))
            })
        )
        const [killed, stopped] = runners as [RunnerProcess, RunnerProcess, RunnerProcess]
        /** What each runner has logged last and how many passes it began: a failed wait prints it. */
        const logs = () =>
          runners
            .map(
              (r) =>
                `--- ${r.name} (${r.events.filter((e) => e.event === "begins").length} passes begun, exit ${r.proc.exitCode ?? r.proc.signalCode ?? "none yet"})\n${r.stderr().slice(-2_000)}`
            )
            .join("\n")
        const cut = new Map<string, number>()
        // SIGKILL in the middle of one of its passes. On a busy machine the cluster can take a
        // while to give the first runner its shards.
        yield* until(
          "the first runner's passes",
          120_000,
          () => killed.events.filter((e) => e.event === "begins").length >= 3
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(logs()))))
        // In flight and already sending: a pass still waiting for its first grant leaves nothing at
        // the exchange to hand over from (CI saw 0 hand-overs when both stopped runners' passes
        // had only waited).
        yield* until("a pass in flight that has sent", 60_000, () => {
          const last = killed.events.at(-1)
          if (last === undefined || last.event !== "begins") return false
          const key = credentialsOf(Number(last.account.slice("acct-".length))).apiKey
          return exchange
            .requests()
            .some((request) => request.key === key && request.signedAt !== undefined && request.signedAt >= last.at)
        })
        killed.proc.kill("SIGKILL")
        cut.set(killed.name, Date.now())
        yield* Effect.promise(() => killed.exited)
        // SIGTERM once the second runner has passes of its own after the kill. How many shards it
        // holds by then, and so how soon its passes come, depends on how fast the runners started
        // and the cluster rebalanced: on a busy machine one runner can hold few accounts for a
        // while, so the wait counts its passes since the kill, not a number of events in a fixed time.
        const killedAt = cut.get(killed.name) ?? 0
        yield* until(
          "two passes of the second runner after the kill",
          120_000,
          () => stopped.events.filter((e) => e.event === "begins" && e.at > killedAt).length >= 2
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(logs()))))
        const termAt = Date.now()
        stopped.proc.kill("SIGTERM")
        const code = yield* Effect.promise(() => stopped.exited)
        expect(code, stopped.stderr()).toBe(0)
        // A runner that has exited passes nothing more: a pass it left without an end (a hand-over
        // past its deadline exits at once) ends there.
        cut.set(stopped.name, Date.now())
        const tookToStop = Date.now() - termAt
        console.info(
          `fleet process test: the SIGTERMed runner exited after ${tookToStop} ms${stopped.stderr().includes("could not hand its accounts over") ? ", past its hand-over deadline" : ""}`
        )
        // Not asserted here yet: on a loaded 2-core machine a SIGTERM in the middle of passes
        // on a busy budget still runs into the 4 s deadline (the passes end 2 to 3.5 s after the
        // runner's layer starts closing, then 64 shard releases queue on the lock connection);
        // FleetShutdown.test.ts asserts the hand-over of a runner with two light accounts.

        yield* until("every account brought current", 180_000, () => Effect.runPromise(current(true)))
        // The dead runner's accounts are passed again by a live one. When the accounts were
        // already current at the kill, nothing above waited for the cluster to notice the dead
        // runner and move its shards (CI saw the checks below run before it had): wait for it here.
        const orphans = new Set(killed.events.map((event) => event.account))
        const passedAfterKill = (account: string) =>
          runners.some(
            (runner) =>
              runner !== killed &&
              runner.events.some((e) => e.account === account && e.event === "begins" && e.at > killedAt)
          )
        yield* until("the SIGKILLed runner's accounts passed by a live runner", 180_000, () =>
          [...orphans].every(passedAfterKill)
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(logs()))))

        // Field for field.
        yield* exact

        // Processed pass messages are purged: the cluster's table stays small however many passes ran.
        const processed = Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ readonly n: number | string }>`
            SELECT COUNT(*) AS n FROM cluster_messages WHERE entity_type = 'BillsAccount' AND processed = true`
          return Number(rows[0]?.n ?? 0)
        }).pipe(Effect.provide(FleetDatabase.sql(db)))
        yield* until("processed messages purged", 30_000, () =>
          Effect.runPromise(Effect.map(processed, (n) => n <= accounts / 2))
        )

        const log = exchange.requests()
        const pickedUp = [...orphans].map(
          (account) =>
            Math.min(
              ...runners.flatMap((runner) =>
                runner === killed
                  ? []
                  : runner.events
                      .filter((e) => e.account === account && e.event === "begins" && e.at > killedAt)
                      .map((e) => e.at)
              )
            ) - killedAt
        )
        const ops = log.filter((r) => r.operation !== undefined)
        const span = ((ops.at(-1)?.at ?? 0) - (ops[0]?.at ?? 0)) / 1000
        console.info(
          `fleet process test: ${ops.length} requests in ${span.toFixed(1)} s (${(ops.length / span / 2).toFixed(1)} req/s per operation, budget ${ipRps}), ${log.filter((r) => r.status === 429).length} × 429, passes per runner ${runners.map((r) => r.events.filter((e) => e.event === "begins").length).join("/")}, ${orphans.size} accounts of the SIGKILLed runner picked up after ${Math.max(...pickedUp)} ms at most`
        )
        // After a hand-over the new owner waits the per-key window before its first request: it
        // cannot see what the old owner sent in its last one.
        const window = SlidingWindow.defaultRateLimit === false ? 0 : SlidingWindow.defaultRateLimit.windowMillis
        const handed = handOvers(
          runners.flatMap((runner) => runner.events),
          log,
          (account) => credentialsOf(Number(account.slice("acct-".length))).apiKey
        )
        console.info(
          `fleet process test: ${handed.length} hand-overs, the shortest ${Math.min(...handed.map((each) => each.gap))} ms from the old owner's last request to the new owner's first`
        )
        expect(handed.length).toBeGreaterThan(0)
        expect(handed.filter((each) => each.gap < window)).toEqual([])
        expect(log.filter((request) => request.status === 429)).toEqual([])
        expect(new Set(log.map((request) => request.key)).size).toBe(accounts)
        expect(
          overlaps(
            runners.flatMap((runner) => runner.events),
            cut
          )
        ).toEqual([])
        // The dead runner's accounts were picked up: every one was passed after the kill.
        expect([...orphans].filter((account) => !passedAfterKill(account))).toEqual([])
      }).pipe(Effect.scoped),
    300_000
  )
})
