/**
 * The fleet's PostgreSQL database from a URL as a user gives it: its `SqlClient` (the cluster's
 * tables and the fleet's account table live there), and the account table and the store on it.
 * Passwords come from `PGPASSWORD`, never the URL.
 *
 * @since 0.1.0
 */
import { type BillsStore, type StoreError, StoreLayer, StoreTarget } from "@account-bills/store"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetAccounts } from "./FleetAccounts.js"
import { FleetNeedsPostgres, FleetUnavailable } from "./FleetErrors.js"
import * as OneAtATime from "./internal/oneAtATime.js"

/**
 * The fleet's database from `--db`: a PostgreSQL URL (its password in `PGPASSWORD`), or the
 * reason it cannot be one.
 *
 * @since 0.1.0
 * @category parsing
 */
export const postgres = (
  db: string
): Effect.Effect<StoreTarget.StoreTarget & { readonly _tag: "Postgres" }, FleetUnavailable | FleetNeedsPostgres> =>
  Effect.flatMap(
    Effect.mapError(StoreTarget.parse(db), (error) => new FleetUnavailable({ target: "--db", reason: error.message })),
    (target) =>
      target._tag === "Postgres"
        ? Effect.succeed(target)
        : Effect.fail(new FleetNeedsPostgres({ target: target.display }))
  )

/**
 * The `SqlClient` of the fleet's database.
 *
 * @since 0.1.0
 * @category layers
 */
export const sql = (db: string): Layer.Layer<SqlClient.SqlClient, FleetUnavailable | FleetNeedsPostgres> =>
  Layer.unwrapEffect(
    Effect.map(postgres(db), (target) =>
      Layer.mapError(
        PgClient.layer({ url: Redacted.make(target.url), applicationName: "account-bills-fleet" }),
        (error) => new FleetUnavailable({ target: target.display, reason: error.message })
      )
    )
  )

/**
 * The account table and the store of the fleet's database, on the `SqlClient` given.
 *
 * @since 0.1.0
 * @category layers
 */
export const accounts = (
  db: string
): Layer.Layer<FleetAccounts | BillsStore, FleetUnavailable | FleetNeedsPostgres | StoreError, SqlClient.SqlClient> =>
  Layer.unwrapEffect(
    Effect.map(postgres(db), (target) => Layer.merge(FleetAccounts.layer(target.display), StoreLayer.layer(target)))
  )

/**
 * Everything `add`, `remove`, `list` and `status` need, from the database's URL.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  db: string
): Layer.Layer<FleetAccounts | BillsStore | SqlClient.SqlClient, FleetUnavailable | FleetNeedsPostgres | StoreError> =>
  Layer.provideMerge(
    // A command beside runners that start on a fresh database takes its turn to set it up.
    Layer.unwrapEffect(
      Effect.map(postgres(db), (target) =>
        OneAtATime.around(
          accounts(db),
          (error) => new FleetUnavailable({ target: target.display, reason: error.message })
        )
      )
    ),
    sql(db)
  )
