/**
 * A raw client on a store target's database, outside the store: to do what another release of
 * the store did (an older schema, a newer one) and see how this one takes it.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as StoreTarget from "../../src/StoreTarget.js"

/** Runs `f` with a raw client on the target's database. */
export const withRaw = <A>(
  target: StoreTarget.StoreTarget,
  f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>
): Effect.Effect<A> =>
  Effect.orDie(
    Effect.flatMap(
      target._tag === "Sqlite"
        ? Effect.map(LibsqlClient.make({ url: `file:${target.path}` }), (client): SqlClient.SqlClient => client)
        : Effect.map(PgClient.make({ url: Redacted.make(target.url) }), (client): SqlClient.SqlClient => client),
      f
    )
  ).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
