/**
 * A runner on a store that a later release migrates beside it (issue 52, section 3: an upgrade one
 * runner at a time): within a look or two (`internal/storeWatch.ts`, every 2 s) it logs one line
 * naming the version it found and the one it knows, begins no pass and sends no request more, and
 * `FleetRunner.launch` closes it and fails with `StoreTooNew`. Its accounts' passes stay pending
 * in the cluster's table, for the runners of the later release to deliver. The later release is
 * played by a raw client that records one migration more, as that release's Migrator would.
 * (`.ci/upgrade-check` tries the same with real builds of both releases.)
 */
import { StoreVersion } from "@account-bills/store"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AddressBudget, FleetCipher, FleetRunner } from "../src/index.js"
import { unscheduledStatement } from "../src/internal/pendingPasses.js"
import { freePorts } from "./support/ports.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 3
const credentialsOf = (i: number) => ({
  apiKey: `new-key-${i}`,
  secret: `new-secret-${i}`,
  passphrase: `new-pass-${i}`
})
const labelOf = (i: number) => `newer-${i}`

/** Runs `ask` on a client of `db` of its own. */
const raw = <A>(db: string, ask: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    return yield* ask(yield* PgClient.make({ url: Redacted.make(db) }))
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

describe.skipIf(postgresUrl === undefined)("a runner on a store newer than it knows", () => {
  it.live(
    "says which version it found, sends nothing more, and leaves with StoreTooNew, its passes pending",
    () => {
      const lines: Array<{ readonly at: number; readonly level: string; readonly text: string }> = []
      const ended: Array<string> = []
      const capture = Logger.make(({ annotations, date, logLevel, message }) => {
        const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
        lines.push({ at: date.getTime(), level: logLevel.label, text })
        const account = Option.getOrUndefined(HashMap.get(annotations, "account"))
        if (text === "pass ends" && account !== undefined) ended.push(String(account))
      })
      return Effect.gen(function* () {
        const { db, exchange } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 60 + i, funding: 30, spot: 30, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        const [port = 0] = yield* freePorts(1)
        const runner = yield* FleetRunner.launch({
          db,
          port,
          interval: Duration.millis(300),
          sharding: {
            shardsPerGroup: 8,
            entityMessagePollInterval: Duration.millis(100),
            refreshAssignmentsInterval: Duration.millis(100)
          },
          config: { baseUrl: exchange.url }
        }).pipe(
          Effect.provide(Layer.merge(AddressBudget.layerNone, FleetCipher.layer(Redacted.make(testKey)))),
          Effect.flip,
          Effect.fork
        )
        // Every account current and passing again and again.
        yield* until("passes of every account", 60_000, () =>
          Array.from({ length: accounts }, (_, i) => labelOf(i)).every(
            (label) => ended.filter((each) => each === label).length >= 2
          )
        )
        // A runner of the next release migrates the store.
        const migratedAt = Date.now()
        yield* raw(
          db,
          (sql) =>
            sql`INSERT INTO account_bills_migrations (migration_id, name) VALUES (${StoreVersion.known + 1}, 'next_release')`
        )
        const error = yield* Fiber.join(runner).pipe(
          Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the runner did not stop") }),
          Effect.orDie
        )
        const stoppedAt = Date.now()
        console.info(`store too new: the runner left ${stoppedAt - migratedAt} ms after the migration`)
        expect(error._tag).toBe("StoreTooNew")
        expect(error).toMatchObject({ version: StoreVersion.known + 1, supported: StoreVersion.known })
        // One line, at ERROR, that names both versions.
        const said = lines.filter((line) => line.text.includes("stops: the store has schema version"))
        expect(said.map((line) => [line.level, line.text])).toEqual([
          [
            "ERROR",
            `runner at 127.0.0.1:${port} stops: the store has schema version ${StoreVersion.known + 1}, newer than the ${StoreVersion.known} this runner knows (a runner of a later release migrated it); it hands its accounts over to the runners of that release`
          ]
        ])
        // Seen at its first or second look, and nothing sent after it said so (a request signed
        // before may land a moment later).
        const saidAt = said[0]?.at ?? 0
        expect(saidAt - migratedAt).toBeLessThan(2 * 2_000 + 1_000)
        expect(exchange.requests().filter((request) => (request.signedAt ?? 0) > saidAt)).toEqual([])
        // No pass began after it said so.
        expect(lines.filter((line) => line.text === "pass begins" && line.at > saidAt)).toEqual([])
        // Every account's pass is still pending, for the next owner.
        expect(yield* raw(db, (sql) => unscheduledStatement(sql))).toEqual([])
      }).pipe(
        Effect.scoped,
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
    },
    90_000
  )
})
