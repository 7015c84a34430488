/**
 * The store on a real engine, from a `StoreTarget`: SQLite through `@effect/sql-libsql` (its
 * engine comes prebuilt inside registry packages, so installing needs no compiler), or
 * PostgreSQL through `@effect/sql-pg`.
 *
 * @since 0.1.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { BillsStore } from "./BillsStore.js"
import * as SqliteClient from "./internal/sqliteClient.js"
import { mapSqlFailure } from "./internal/sqlFailure.js"
import type { StoreError } from "./StoreErrors.js"
import * as StoreTarget from "./StoreTarget.js"

const client = (target: StoreTarget.StoreTarget) =>
  target._tag === "Sqlite"
    ? Effect.gen(function* () {
        const sqlite = yield* LibsqlClient.make({ liveClient: yield* SqliteClient.make(target.path) })
        // Write-ahead logging lets readers go on while a sync writes; the mode stays with the file.
        yield* sqlite`PRAGMA journal_mode = WAL`
        return sqlite as SqlClient.SqlClient
      })
    : Effect.map(
        PgClient.make({
          url: Redacted.make(target.url),
          connectTimeout: Duration.seconds(10),
          applicationName: "account-bills"
        }),
        (pg): SqlClient.SqlClient => pg
      )

/**
 * The store at `target`, opened and migrated for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (target: StoreTarget.StoreTarget): Layer.Layer<BillsStore, StoreError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const sql = yield* mapSqlFailure(target.display)(client(target))
      const store = yield* Effect.provideService(BillsStore.make(target.display), SqlClient.SqlClient, sql)
      return Context.make(BillsStore, store)
    })
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * The store at a `PATH|URL` as a user gives it (`bills.sqlite` when undefined).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFrom = (text: string | undefined): Layer.Layer<BillsStore, StoreError> =>
  Layer.unwrapEffect(Effect.map(StoreTarget.parse(text ?? StoreTarget.defaultPath), layer))
