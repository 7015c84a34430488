/**
 * The accounts of `ab_accounts`: each label (or key fingerprint) a store's rows belong to.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AccountRow } from "./storeRows.js"

/** The queries on `ab_accounts`, over the `SqlClient` in context. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Records the account unless its id is taken; the row of the id is then read back. */
  const insert = SqlSchema.void({
    Request: AccountRow,
    execute: (row) =>
      sql`INSERT INTO ab_accounts (account, fingerprint, label) VALUES (${row.account}, ${row.fingerprint}, ${row.label}) ON CONFLICT DO NOTHING`
  })

  const byId = SqlSchema.findOne({
    Request: Schema.String,
    Result: AccountRow,
    execute: (account) => sql`SELECT account, fingerprint, label FROM ab_accounts WHERE account = ${account}`
  })

  const all = SqlSchema.findAll({
    Request: Schema.Void,
    Result: AccountRow,
    execute: () => sql`SELECT account, fingerprint, label FROM ab_accounts ORDER BY account`
  })

  return { insert, byId, all: all(undefined) } as const
})
