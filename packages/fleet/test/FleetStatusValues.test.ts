/**
 * What `FleetStatus` tells an operator, value by value, in a status taken while an account is
 * stalled and its runner is dead: a runner syncs two accounts and is SIGKILLed; its heartbeat is
 * then an hour old, and one account's store is covered to an hour before the other's. The lag,
 * the owner's liveness, the last and next pass and the runners list are each compared with what
 * the database holds.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetStatus } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const hour = 3_600_000
const labelOf = (i: number) => `st-${i}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("FleetStatus, value by value", () => {
  it.live(
    "a stalled account and a dead runner: lag, ownerAlive, lastPass, nextPass, runners",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database, current } = yield* seededFleet({
          accounts: 2,
          labelOf,
          credentialsOf: (i) => ({ apiKey: `st-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` }),
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 60 + i, funding: 30, spot: 30, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        // Before any runner joined, the cluster's tables are not there: no runner, no pass due.
        const unjoined = yield* Effect.all([FleetStatus.runners, FleetStatus.all]).pipe(Effect.provide(database))
        expect(unjoined[0]).toEqual([])
        expect(unjoined[1].map((row) => [row.owner, row.ownerAlive, row.nextPass])).toEqual([
          [null, null, null],
          [null, null, null]
        ])
        const [port = 0] = yield* freePorts(1)
        const address = `127.0.0.1:${port}`
        const runner = yield* scopedBills("st", ["run", "--db", db, "--port", String(port), "--interval", "1m"], {
          BILLS_FLEET_KEY: testKey,
          WEEX_BASE_URL: exchange.url
        })
        yield* until("both accounts current", 60_000, () => Effect.runPromise(current(true)))
        // While it runs, its heartbeat is fresh: it and its accounts' owner are alive.
        const live = yield* Effect.all([FleetStatus.runners, FleetStatus.all]).pipe(Effect.provide(database))
        expect(live[0].map((each) => [each.address, each.alive])).toEqual([[address, true]])
        expect(live[1].map((row) => [row.owner, row.ownerAlive])).toEqual([
          [address, true],
          [address, true]
        ])
        runner.proc.kill("SIGKILL")
        yield* Effect.promise(() => runner.exited)

        yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // The runner died an hour ago; st-1's store stalled an hour before that.
          yield* sql`UPDATE cluster_runners SET last_heartbeat = now() - interval '1 hour'`
          yield* sql`UPDATE ab_sync SET covered_to = covered_to - ${hour} WHERE account = ${labelOf(1)}`
          const before = Date.now()
          const rows = yield* FleetStatus.all
          const runners = yield* FleetStatus.runners
          const after = Date.now()
          const covered = yield* sql<{ readonly account: string; readonly kind: string; readonly covered_to: string }>`
            SELECT account, kind, covered_to FROM ab_sync`
          const seen = yield* sql<{
            readonly label: string
            readonly owner: string
            readonly owner_seen: string
            readonly next_pass: string | null
          }>`SELECT label, owner, owner_seen, next_pass FROM fleet_accounts`

          expect(runners).toHaveLength(1)
          expect(runners[0]?.address).toBe(address)
          expect(runners[0]?.alive).toBe(false)
          expect(runners[0]?.heartbeatAgeMillis).toBeGreaterThanOrEqual(hour)
          expect(runners[0]?.heartbeatAgeMillis).toBeLessThan(hour + FleetStatus.staleAfterMillis)

          expect(rows.map((row) => row.label)).toEqual([labelOf(0), labelOf(1)])
          for (const row of rows) {
            expect(row.owner).toBe(address)
            expect(row.ownerAlive).toBe(false)
            expect(row.lastPass).toBe(Number(seen.find((each) => each.label === row.label)?.owner_seen))
            // The next pass as the dead runner's loop last wrote it: at once while a pass of the
            // first sync was under way (the futures walk goes on), else a minute after one ended.
            const next = seen.find((each) => each.label === row.label)?.next_pass
            expect(next).not.toBeNull()
            expect(row.nextPass).toBe(Number(next))
            expect(Number(next) - (row.lastPass ?? 0)).toBeGreaterThanOrEqual(-1_000)
            expect(Number(next) - (row.lastPass ?? 0)).toBeLessThan(90_000)
            for (const kind of ["funding", "spot"] as const) {
              const to = Number(covered.find((each) => each.account === row.label && each.kind === kind)?.covered_to)
              expect(row[kind].coveredTo).toBe(to)
              // Its passes did not fail: no error, and none since when.
              expect([row[kind].error, row[kind].errorSince]).toEqual([null, null])
              expect(row[kind].lagMillis).toBeGreaterThanOrEqual(before - to)
              expect(row[kind].lagMillis).toBeLessThanOrEqual(after - to)
            }
          }
          // The stalled account is behind by its hour, the other is not.
          expect(rows[1]?.funding.lagMillis).toBeGreaterThanOrEqual(hour)
          expect(rows[0]?.funding.lagMillis).toBeLessThan(hour)
        }).pipe(Effect.provide(database))
      }).pipe(Effect.scoped),
    120_000
  )
})
