/**
 * The reconciler's reads and writes of the cluster's message table: which accounts have no pass
 * pending, and the purge of processed passes. A round runs every few seconds on an idle fleet
 * too, so each is one statement.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { entityType } from "../FleetEntity.js"

/**
 * The labels of the accounts with no pending (unprocessed) pass in the cluster's message table,
 * in one statement that answers only those: a reconciler's round, every few seconds, of a fleet
 * whose accounts all have their pass pending reads no row. The entity id is worked out in SQL as
 * `entityIdOf` works it out (`PendingPasses.test.ts` holds the two to each other).
 */
export const unscheduled = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly label: string }>`
    SELECT label FROM fleet_accounts a WHERE NOT EXISTS (
      SELECT 1 FROM cluster_messages m
      WHERE m.entity_type = ${entityType} AND m.processed = false AND m.kind = 0
        AND m.entity_id = 'a' || left(encode(sha256(convert_to(a.label, 'UTF8')), 'hex'), 40))
    ORDER BY label`
  return rows.map((row) => row.label)
})

/** Processed pass messages and their replies, deleted in one statement. */
export const purgeProcessed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`WITH gone AS (
      DELETE FROM cluster_messages WHERE entity_type = ${entityType} AND processed = true RETURNING id)
    DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM gone)`
})
