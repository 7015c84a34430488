/**
 * Opening a store on the `SqlClient` in context: a read finds an existing store or fails, a
 * sync creates one; either way the schema is migrated to this code's version, and a store
 * from a newer version is refused before anything is written.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { StoreNotFound, StoreTooNew } from "../StoreErrors.js"
import { loader, migrationsTable, schemaVersion, versionOf } from "./migrations.js"
import { mapSqlFailure } from "./sqlFailure.js"
import { CountRow } from "./storeRows.js"

/** PostgreSQL's advisory lock for migrating the store: one key for this schema, any number. */
const migrationLockKey = 7_264_105_220

/** Whether the database holds the Migrator's table, i.e. is a store at all. */
const hasStoreTable = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Void,
    Result: CountRow,
    execute: () =>
      sql.onDialectOrElse({
        pg: () =>
          sql`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ${migrationsTable}`,
        orElse: () => sql`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${migrationsTable}`
      })
  })(undefined).pipe(Effect.map(Option.exists((row) => (row.n ?? 0) > 0)))

// Stores opened at once (two syncs started together) migrate one after the other: alone, the
// Migrator's creation of its table races on PostgreSQL. One write transaction, with an advisory
// lock on PostgreSQL, orders them; there the table is created first, as the Migrator would,
// because the Migrator's probe for it fails when it is missing, and a failed statement would
// abort the transaction.
const migrate = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(
    Effect.zipRight(
      sql.onDialectOrElse({
        pg: () =>
          Effect.zipRight(
            sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`,
            sql`CREATE TABLE IF NOT EXISTS ${sql(migrationsTable)} (
              migration_id integer primary key,
              created_at timestamp with time zone not null default now(),
              name text not null
            )`
          ),
        orElse: () => Effect.void
      }),
      Effect.catchTag(Migrator.make({})({ loader, table: migrationsTable }), "MigrationError", (error) =>
        Effect.dieMessage(error.message)
      )
    )
  )

/**
 * How to open: `create` makes a store where there is none (a sync); without it, a database
 * that holds no store fails with `StoreNotFound` and is left as it was (a read).
 */
export interface OpenOptions {
  readonly create: boolean
}

/** Opens (or creates) the store on the `SqlClient` in context; `target` names it in messages. */
export const openStore = (target: string, options: OpenOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const mapped = mapSqlFailure(target)
    if (!options.create && !(yield* mapped(hasStoreTable(sql)))) {
      return yield* new StoreNotFound({ target, reason: "it holds no account-bills store" })
    }
    // Write-ahead logging lets readers go on while a sync writes; the mode stays with the file.
    yield* mapped(sql.onDialectOrElse({ sqlite: () => sql`PRAGMA journal_mode = WAL`, orElse: () => Effect.void }))
    yield* mapped(migrate(sql))
    const found = yield* mapped(versionOf(sql))
    if (found > schemaVersion) return yield* new StoreTooNew({ target, version: found, supported: schemaVersion })
  })
