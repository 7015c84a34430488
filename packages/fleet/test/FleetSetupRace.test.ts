/**
 * Runners that start together on a fresh database (replicas of one deployment) all start:
 * `@effect/sql`'s Migrator, which sets up the cluster's tables, creates its own table of applied
 * migrations with no lock held, and before runners took turns to set the database up one of them
 * failed on that `CREATE TABLE` and exited (`internal error: SqlError: Failed to execute
 * statement`, seen in CI). In one process, so that the starts meet within a millisecond.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { AddressBudget, FleetCipher, FleetDatabase, FleetRunner } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { freshDatabase, postgresUrl, testKey } from "./support/services.js"

const together = 8

describe.skipIf(postgresUrl === undefined)("runners started together on a fresh database", () => {
  it.live(`${together} runners at the same moment all start, three databases over`, () =>
    Effect.gen(function* () {
      for (let round = 0; round < 3; round++) {
        const db = yield* freshDatabase(postgresUrl ?? "")
        const ports = yield* freePorts(together)
        const exits = yield* Effect.forEach(
          ports,
          (port) =>
            Effect.exit(
              Effect.scoped(
                Layer.build(
                  FleetRunner.layer({ db, port }).pipe(
                    Layer.provide(AddressBudget.layerNone),
                    Layer.provide(FleetCipher.layer(Redacted.make(testKey)))
                  )
                )
              )
            ),
          { concurrency: "unbounded" }
        )
        const failed = exits.filter(Exit.isFailure).map((exit) => String(exit.cause))
        expect(failed, `round ${round}`).toEqual([])
        // The set-up ends with our index of pending passes on the cluster's message table.
        const indexes = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`SELECT indexname FROM pg_indexes WHERE indexname = 'ab_fleet_pending_passes'`
        ).pipe(Effect.provide(FleetDatabase.sql(db)), Effect.orDie)
        expect(indexes, `round ${round}`).toHaveLength(1)
      }
    })
  )
})
