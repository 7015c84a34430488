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
import * as fs from "node:fs"
import { BillsStore, type OpenOptions } from "./BillsStore.js"
import * as SqliteClient from "./internal/sqliteClient.js"
import { isMissingDatabase, mapSqlFailure } from "./internal/sqlFailure.js"
import { missingDatabase, type StoreError, StoreNotFound } from "./StoreErrors.js"
import { StoreReader } from "./StoreReader.js"
import * as StoreTarget from "./StoreTarget.js"

/**
 * SQLite creates the file it is asked to open (and its -wal and -shm beside it), so a read
 * looks before it opens.
 */
const sqliteFileExists = (target: StoreTarget.StoreTarget & { readonly _tag: "Sqlite" }) =>
  Effect.filterOrFail(
    Effect.sync(() => fs.statSync(target.path, { throwIfNoEntry: false })),
    (stat) => stat?.isFile() === true,
    (stat) =>
      new StoreNotFound({
        target: target.display,
        reason: stat === undefined ? "the file does not exist" : "it is not a file"
      })
  )

const client = (target: StoreTarget.StoreTarget) =>
  target._tag === "Sqlite"
    ? Effect.map(
        Effect.flatMap(SqliteClient.make(target.path), (liveClient) => LibsqlClient.make({ liveClient })),
        (sqlite): SqlClient.SqlClient => sqlite
      )
    : Effect.map(
        PgClient.make({
          url: Redacted.make(target.url),
          connectTimeout: Duration.seconds(10),
          applicationName: "account-bills"
        }),
        (pg): SqlClient.SqlClient => pg
      )

/**
 * The store at `target`, opened and migrated for the lifetime of the layer. A sync creates it
 * where there is none; with `{ create: false }` (reads) only an existing store opens, and a
 * missing one fails with `StoreNotFound`, leaving no file behind.
 *
 * @since 0.1.0
 * @category layers
 */
export const forTarget = (
  target: StoreTarget.StoreTarget,
  options?: OpenOptions
): Layer.Layer<BillsStore, StoreError> =>
  Layer.scopedContext(Effect.map(opened(target, options), ({ store }) => Context.make(BillsStore, store))).pipe(
    Layer.provide(Reactivity.layer)
  )

/** The store at `target`, opened and migrated, with the SQL client it was opened on. */
const opened = (target: StoreTarget.StoreTarget, options: OpenOptions | undefined) =>
  Effect.gen(function* () {
    if (target._tag === "Sqlite" && options?.create === false) yield* sqliteFileExists(target)
    const sql = yield* client(target).pipe(
      // A PostgreSQL database is the server's to create, for a sync as for a read: both say so
      // in the same words.
      Effect.catchIf(isMissingDatabase, () => new StoreNotFound({ target: target.display, reason: missingDatabase })),
      mapSqlFailure(target.display)
    )
    const store = yield* Effect.provideService(BillsStore.make(target.display, options), SqlClient.SqlClient, sql)
    return { sql, store }
  })

/**
 * An existing store at a `PATH|URL` as a user gives it, read only: the store and its
 * `StoreReader`, on one connection. A missing store fails with `StoreNotFound`, as any read's.
 *
 * @since 0.3.0
 * @category layers
 */
export const readerFrom = (text: string): Layer.Layer<BillsStore | StoreReader, StoreError> =>
  Layer.unwrapEffect(
    Effect.map(StoreTarget.parse(text), (target) =>
      Layer.scopedContext(
        Effect.gen(function* () {
          const { sql, store } = yield* opened(target, { create: false })
          const reader = yield* Effect.provideService(StoreReader.make(target.display), SqlClient.SqlClient, sql)
          return Context.make(BillsStore, store).pipe(Context.add(StoreReader, reader))
        })
      ).pipe(Layer.provide(Reactivity.layer))
    )
  )

/**
 * The store at `target`.
 *
 * @deprecated Use `StoreLayer.forTarget`, the same layer under a name that does not repeat the module's.
 * @since 0.1.0
 * @category layers
 */
export const layer = (target: StoreTarget.StoreTarget): Layer.Layer<BillsStore, StoreError> => forTarget(target)

/**
 * The store at a `PATH|URL` as a user gives it (`bills.sqlite` when undefined); `options` as
 * for `forTarget`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFrom = (text: string | undefined, options?: OpenOptions): Layer.Layer<BillsStore, StoreError> =>
  Layer.unwrapEffect(
    Effect.map(StoreTarget.parse(text ?? StoreTarget.defaultPath), (target) => forTarget(target, options))
  )
