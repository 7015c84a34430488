/**
 * The store's schema version, read while a store is in use: a long-lived writer (a fleet's
 * runner) looks again now and then, because a newer release beside it may migrate the store it
 * opened (an upgrade one runner at a time). Opening a store checks it once (`StoreTooNew`).
 *
 * @since 0.3.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { schemaVersion, versionOf } from "./internal/migrations.js"
import { mapSqlFailure } from "./internal/sqlFailure.js"
import type { StoreFailure } from "./BillsStore.js"
import { StoreTooNew } from "./StoreErrors.js"

/**
 * The schema version this release writes: the id of its last migration.
 *
 * @since 0.3.0
 * @category constants
 */
export const known: number = schemaVersion

/**
 * The schema version of the store on the `SqlClient` in context (0 when it holds none); one
 * statement. `target` names the store in a failure.
 *
 * @since 0.3.0
 * @category reading
 */
export const read = (target: string): Effect.Effect<number, StoreFailure, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => mapSqlFailure(target)(versionOf(sql)))

/**
 * Fails with `StoreTooNew` when the store's schema is newer than {@link known}: a later release
 * has migrated it, and what this one writes could lose what that one keeps.
 *
 * @since 0.3.0
 * @category reading
 */
export const check = (target: string): Effect.Effect<void, StoreFailure | StoreTooNew, SqlClient.SqlClient> =>
  Effect.flatMap(read(target), (found) =>
    found > known ? Effect.fail(new StoreTooNew({ target, version: found, supported: known })) : Effect.void
  )
