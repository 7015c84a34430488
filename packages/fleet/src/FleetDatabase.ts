/**
 * The fleet's PostgreSQL database from a URL as a user gives it: its `SqlClient` (the cluster's
 * tables and the fleet's account table live there), and the account table and the store on it.
 * Passwords come from `PGPASSWORD`, never the URL.
 *
 * @since 0.1.0
 */
import { type BillsStore, type StoreError, StoreLayer, StoreTarget } from "@account-bills/store"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetAccounts, type OpenOptions } from "./FleetAccounts.js"
import { FleetNeedsPostgres, type FleetNotFound, FleetUnavailable } from "./FleetErrors.js"
import { driverReason } from "./internal/driverReason.js"
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
        (error) => new FleetUnavailable({ target: target.display, reason: driverReason(error) })
      )
    )
  )

/**
 * Whether the fleet's database answers: a connection and a `SELECT 1`, closed at once; the
 * driver's reason when it does not. `bills fleet run` asks it before the runner joins.
 *
 * @since 0.2.0
 * @category checks
 */
export const check = (db: string): Effect.Effect<void, FleetUnavailable | FleetNeedsPostgres> =>
  Effect.flatMap(postgres(db), (target) =>
    Effect.flatMap(SqlClient.SqlClient, (client) => client`SELECT 1`).pipe(
      Effect.provide(sql(db)),
      Effect.asVoid,
      Effect.catchTag("SqlError", (error) =>
        Effect.fail(new FleetUnavailable({ target: target.display, reason: driverReason(error) }))
      )
    )
  )

/**
 * The account table and the store of the fleet's database, on the `SqlClient` given; with
 * `{ create: false }` a database without a fleet fails with `FleetNotFound`, and neither is
 * created.
 *
 * @since 0.1.0
 * @category layers
 */
export const accounts = (
  db: string,
  options?: OpenOptions
): Layer.Layer<
  FleetAccounts | BillsStore,
  FleetUnavailable | FleetNeedsPostgres | FleetNotFound | StoreError,
  SqlClient.SqlClient
> =>
  Layer.unwrapEffect(
    Effect.map(postgres(db), (target) =>
      // The table first: a database without a fleet is named as such before the store looks.
      Layer.provideMerge(
        StoreLayer.forTarget(target, { create: options?.create !== false }),
        FleetAccounts.layer(target.display, options)
      )
    )
  )

/**
 * Everything `add`, `remove`, `list` and `status` need, from the database's URL; `options` as
 * for {@link accounts}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  db: string,
  options?: OpenOptions
): Layer.Layer<
  FleetAccounts | BillsStore | SqlClient.SqlClient,
  FleetUnavailable | FleetNeedsPostgres | FleetNotFound | StoreError
> =>
  Layer.provideMerge(
    // A command beside runners that start on a fresh database takes its turn to set it up.
    Layer.unwrapEffect(
      Effect.map(postgres(db), (target) =>
        OneAtATime.around(
          accounts(db, options),
          (error) => new FleetUnavailable({ target: target.display, reason: error.message })
        )
      )
    ),
    sql(db)
  )
