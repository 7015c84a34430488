/**
 * The fleet's set-up lock is held for the whole time its layer builds, and given back then:
 * asked from another session while the layer is being built, the lock is taken; asked after,
 * it is free. Every run, where a race between runners (FleetSetupRace) shows a lock given back
 * too early only when the starts happen to meet.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FleetDatabase } from "../src/index.js"
import * as OneAtATime from "../src/internal/oneAtATime.js"
import { freshDatabase, postgresUrl } from "./support/services.js"

/** Whether another session can take the set-up lock now (given back at once if so). */
const lockFree = Effect.scoped(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const other = yield* sql.reserve
    const rows = yield* other.execute(`SELECT pg_try_advisory_lock(${OneAtATime.setupLockKey}) AS taken`, [], undefined)
    const taken = (rows[0] as { readonly taken?: boolean } | undefined)?.taken === true
    if (taken) yield* other.executeRaw(`SELECT pg_advisory_unlock(${OneAtATime.setupLockKey})`, [])
    return taken
  })
)

describe.skipIf(postgresUrl === undefined)("the fleet's set-up lock", () => {
  it.live("held from the first to the last step of the layer's build, free afterwards", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      const seen: Array<readonly [string, boolean]> = []
      const building = Layer.scopedDiscard(
        Effect.gen(function* () {
          seen.push(["first step", yield* lockFree])
          yield* Effect.sleep("50 millis")
          seen.push(["last step", yield* lockFree])
        })
      )
      yield* Effect.gen(function* () {
        yield* Layer.build(OneAtATime.around(building, (error) => error))
        seen.push(["built", yield* lockFree])
      }).pipe(Effect.scoped, Effect.provide(FleetDatabase.sql(db)))
      expect(seen).toEqual([
        ["first step", false],
        ["last step", false],
        ["built", true]
      ])
    })
  )
})
