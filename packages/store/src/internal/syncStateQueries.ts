/**
 * Reads of `ab_sync`, the row per account and kind that says what is covered, where a walk in
 * progress stands, and who holds the lease.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import { SyncKey, SyncRow } from "./storeRows.js"

/** The queries on `ab_sync` that read it, over the `SqlClient` in context. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Makes the row of (account, kind) exist, so that the lease has a row to take. */
  const ensure = SqlSchema.void({
    Request: SyncKey,
    execute: (key) =>
      sql`INSERT INTO ab_sync (account, kind) VALUES (${key.account}, ${key.kind}) ON CONFLICT DO NOTHING`
  })

  /** The row of (account, kind), if a sync ever touched it. */
  const read = SqlSchema.findOne({
    Request: SyncKey,
    Result: SyncRow,
    execute: (key) =>
      sql`SELECT covered_from, covered_to, cursor, server_order, lease_owner, lease_until, aged_out FROM ab_sync WHERE account = ${key.account} AND kind = ${key.kind}`
  })

  return { ensure, read } as const
})
