/**
 * Processes that open the fleet's database together set it up one after the other. On a fresh
 * database `@effect/sql`'s Migrator (the store's and the cluster's tables) creates its own table
 * of applied migrations after finding none, with no lock held: two runners started together
 * (replicas of one deployment) both find none, one `CREATE TABLE` fails, and that runner exits.
 * Once that table exists the Migrator locks it, so only the first opening needs the turn. A
 * session advisory lock, taken on a connection of its own for the time the layer takes to build
 * and given back then, gives it; a process that dies frees it with its connection.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The advisory lock of the fleet's set-up: any constant other locks of the database do not use. */
export const setupLockKey = 7_264_105_222

/**
 * `layer`, built while this process holds the fleet's set-up lock; it runs for the lifetime of
 * the outer layer, after the lock is given back. A lock that cannot be taken fails with
 * `unavailable`'s error.
 */
export const around = <ROut, E, RIn, E2>(
  layer: Layer.Layer<ROut, E, RIn>,
  unavailable: (error: SqlError) => E2
): Layer.Layer<ROut, E | E2, RIn | SqlClient.SqlClient> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const outer = yield* Effect.scope
      const sql = yield* SqlClient.SqlClient
      return yield* Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* Effect.mapError(sql.reserve, unavailable)
          yield* Effect.acquireRelease(
            Effect.mapError(connection.executeRaw(`SELECT pg_advisory_lock(${setupLockKey})`, []), unavailable),
            () => Effect.ignore(connection.executeRaw(`SELECT pg_advisory_unlock(${setupLockKey})`, []))
          )
          return yield* Layer.buildWithScope(layer, outer)
        })
      )
    })
  )
