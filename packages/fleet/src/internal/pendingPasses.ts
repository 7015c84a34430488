/**
 * The fleet's reads and writes of the cluster's message table: which accounts have no pending
 * pass (the reconciler's round, every few seconds on an idle fleet too) and the purge of processed
 * passes, each one statement; and the index of ours the first reads. (A pending pass is an
 * account's loop of passes, running or waiting for its runner.)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { entityType } from "../FleetEntity.js"

/**
 * The index of pending passes by entity, ours, on the cluster's message table: the cluster
 * indexes it by shard and request only, so the question below (asked of every account each
 * reconciler round) would read the whole table, which holds a pending pass of each account of the
 * fleet. Made while the runner sets up, after the cluster's own tables, under the set-up lock.
 */
export const indexPending = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS ab_fleet_pending_passes ON cluster_messages (entity_type, entity_id)
    WHERE processed = false AND kind = 0`
})

/**
 * The labels of the accounts with no pending (unprocessed) pass in the cluster's message table,
 * in one statement that answers only those: a reconciler's round, every few seconds, of a fleet
 * whose accounts all have their pass pending reads no row. The entity id is worked out in SQL as
 * `entityIdOf` works it out (`PendingPasses.test.ts` holds the two to each other).
 */
export const unscheduled = Effect.gen(function* () {
  const rows = yield* unscheduledStatement(yield* SqlClient.SqlClient)
  return rows.map((row) => row.label)
})

/** The statement of {@link unscheduled}. */
export const unscheduledStatement = (sql: SqlClient.SqlClient) =>
  sql<{ readonly label: string }>`
    SELECT label FROM fleet_accounts a WHERE NOT EXISTS (
      SELECT 1 FROM cluster_messages m
      WHERE m.entity_type = ${entityType} AND m.processed = false AND m.kind = 0
        AND m.entity_id = 'a' || left(encode(sha256(convert_to(a.label, 'UTF8')), 'hex'), 40))
    ORDER BY label`

/** Processed pass messages and their replies, deleted in one statement. */
export const purgeProcessed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`WITH gone AS (
      DELETE FROM cluster_messages WHERE entity_type = ${entityType} AND processed = true RETURNING id)
    DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM gone)`
})
