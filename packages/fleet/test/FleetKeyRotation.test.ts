/**
 * A fleet key rotates under running runners: two runners on the old key are restarted one at a
 * time with the new key and the old one as `BILLS_FLEET_KEY_PREVIOUS`, `bills fleet rekey`
 * re-encrypts every row, and the runners are restarted again with the new key alone. No pass
 * fails on the way; `add` under the old key is refused afterwards (it opens none of the
 * stored credentials), `rekey` under keys that open nothing changes nothing, and a `pg_dump` of
 * the database holds no credential in clear.
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetAccounts, FleetCipher, FleetDatabase, FleetStatus } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { billsToEnd, type RunnerProcess, scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 3
const day = 86_400_000
const credentialsOf = (i: number) => ({
  apiKey: `rotate-apikey-${i}`,
  secret: `rotate-secret-${i}`,
  passphrase: `rotate-passphrase-${i}`
})
const labelOf = (i: number) => `rot-${i}`
const newKey = Buffer.alloc(32, 9).toString("base64")
const strangerKey = Buffer.alloc(32, 3).toString("base64")

const run = billsToEnd

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("rotating BILLS_FLEET_KEY", () => {
  it.live(
    "under running runners: no pass fails, old keys are refused after, no secret in clear",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 800 + i, funding: 40, spot: 40, startMillis: now - day, endMillis: now - 60_000 }
          })
        })
        const ports = yield* freePorts(6)
        const started: Array<RunnerProcess> = []
        const start = (i: number, env: Readonly<Record<string, string>>) =>
          Effect.map(
            scopedBills(`r${i}`, ["run", "--db", db, "--port", String(ports[i]), "--interval", "1s"], {
              ...env,
              WEEX_BASE_URL: exchange.url
            }),
            (runner) => {
              started.push(runner)
              return runner
            }
          )
        const stop = (runner: RunnerProcess) =>
          Effect.promise(() => {
            runner.proc.kill("SIGTERM")
            return runner.exited
          })
        const passes = () =>
          started.reduce((n, runner) => n + runner.events.filter((e) => e.event === "ends").length, 0)
        const morePasses = (what: string, count: number) =>
          Effect.suspend(() => {
            const from = passes()
            return until(what, 60_000, () => passes() >= from + count)
          })

        const old = { BILLS_FLEET_KEY: testKey }
        const rotating = { BILLS_FLEET_KEY: newKey, BILLS_FLEET_KEY_PREVIOUS: testKey }
        const rotated = { BILLS_FLEET_KEY: newKey }
        const a = yield* start(0, old)
        const b = yield* start(1, old)
        yield* morePasses("passes on the old key", 2 * accounts)
        // One runner at a time, each picking up the new key beside the old one.
        yield* stop(a)
        const c = yield* start(2, rotating)
        yield* stop(b)
        const d = yield* start(3, rotating)
        yield* morePasses("passes while the key rotates", accounts)
        const rekeyed = yield* run(["rekey", "--db", db], rotating)
        expect(rekeyed.code, rekeyed.output).toBe(0)
        expect(rekeyed.output).toContain(`re-encrypted ${accounts} accounts`)
        yield* morePasses("passes after the rekey", accounts)
        yield* stop(c)
        yield* start(4, rotated)
        yield* stop(d)
        yield* start(5, rotated)
        yield* morePasses("passes on the new key alone", 2 * accounts)

        for (const runner of started) {
          expect(runner.stderr(), runner.name).not.toMatch(/level=WARN[^\n]*pass/)
        }
        const rows = yield* FleetStatus.all.pipe(Effect.provide(database))
        expect(rows.map((row) => [row.label, row.funding.error, row.spot.error])).toEqual(
          Array.from({ length: accounts }, (_, i) => [labelOf(i), null, null])
        )
        // The rows open under the new key alone.
        const reopened = yield* Effect.forEach(rows, (row) =>
          Effect.flatMap(FleetAccounts, (fleet) => fleet.open(row.label))
        ).pipe(
          Effect.provide(FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(newKey))))),
          Effect.either
        )
        expect(reopened._tag).toBe("Right")

        // The old key cannot add any more; keys that open nothing rekey nothing.
        const addEnv = { WEEX_API_KEY: "k", WEEX_API_SECRET: "s", WEEX_API_PASSPHRASE: "p" }
        const stale = yield* run(["add", "--db", db, "--label", "late"], { ...old, ...addEnv })
        expect(stale.code).toBe(1)
        expect(stale.output).toContain("opens none of the 3 accounts stored")
        expect(stale.output).toContain("bills fleet rekey")
        const strangers = yield* run(["rekey", "--db", db], {
          BILLS_FLEET_KEY: strangerKey,
          BILLS_FLEET_KEY_PREVIOUS: testKey
        })
        expect(strangers.code).toBe(1)
        expect(strangers.output).toContain("nothing was re-encrypted")
        expect(strangers.output).toContain("rot-0, rot-1, rot-2")
        const added = yield* run(["add", "--db", db, "--label", "late"], { ...rotated, ...addEnv })
        expect(added.code, added.output).toBe(0)

        // No credential in clear anywhere in the database.
        const dump = yield* Effect.promise(() => promisify(execFile)("pg_dump", [db], { maxBuffer: 64 * 1024 * 1024 }))
        expect(dump.stdout).toContain("fleet_accounts")
        for (let i = 0; i < accounts; i++) {
          for (const secret of Object.values(credentialsOf(i))) expect(dump.stdout).not.toContain(secret)
        }
      }).pipe(Effect.scoped),
    240_000
  )
})
