/**
 * The reconciler's round on an idle fleet (issue 38, section 3): every few seconds it asks which
 * accounts have no pass pending and purges processed passes. Each is one statement, and the
 * first answers only the accounts it must schedule, its entity ids worked out in SQL exactly as
 * `entityIdOf` works them out (the cluster's own tables, made by its message storage).
 */
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { entityIdOf, entityType, FleetAccounts, FleetCipher, FleetDatabase } from "../src/index.js"
import * as PendingPasses from "../src/internal/pendingPasses.js"
import { statementsOf } from "../../store/test/support/statements.js"
import { freshDatabase, postgresUrl, testKey } from "./support/services.js"

const labels = ["desk", "a.b@c+d-1", "Z9", "x_y", "treasury-2026"]
const older = `bureau ünd Ständer ラベル ${"x".repeat(80)}`
const credentials = (n: number) => ({
  apiKey: Redacted.make(`key-${n}`),
  secret: Redacted.make(`secret-${n}`),
  passphrase: Redacted.make(`pass-${n}`)
})

describe.skipIf(postgresUrl === undefined)("the reconciler's statements", () => {
  it.live("answers only the accounts with no pass pending, and purges processed passes, one statement each", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      const services = Layer.mergeAll(
        Layer.provide(FleetDatabase.accounts(db), FleetDatabase.sql(db)),
        FleetDatabase.sql(db),
        Layer.provide(SqlMessageStorage.layer, Layer.merge(FleetDatabase.sql(db), ShardingConfig.layerDefaults))
      ).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
      yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        for (const [i, label] of labels.entries()) yield* accounts.add(label, credentials(i))
        const sql = yield* SqlClient.SqlClient
        // A label an older version let in (any characters, any length), written as it wrote it.
        yield* sql`INSERT INTO fleet_accounts (label, fingerprint, sealed, added_at, updated_at)
          VALUES (${older}, 'f', 's', 0, 0)`
        let id = 0
        const message = (label: string, processed: boolean, kind = 0) => {
          id++
          return sql`INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag,
              payload, headers, processed, request_id)
            VALUES (${id}, ${`m${id}`}, 'default:1', ${entityType}, ${entityIdOf(label)}, ${kind}, 'Pass', '{}', '{}',
              ${processed}, ${id})`
        }
        const reply = (request: number) =>
          sql`INSERT INTO cluster_replies (id, kind, request_id, payload) VALUES (${1000 + request}, 0, ${request}, '{}')`
        // Every account without a pass: all of them are due.
        const none = yield* statementsOf(PendingPasses.unscheduled)
        expect(none.result).toEqual([...labels, older].sort())
        expect(none.sent).toHaveLength(1)
        // A pending pass (by the id `entityIdOf` gives) takes its account out; a processed one, or
        // a message of another kind, does not.
        yield* message("desk", false)
        yield* message("Z9", false)
        yield* message(older, false)
        yield* message("a.b@c+d-1", true)
        yield* reply(4)
        yield* message("x_y", false, 1)
        const some = yield* statementsOf(PendingPasses.unscheduled)
        expect(some.result).toEqual(["a.b@c+d-1", "treasury-2026", "x_y"])
        expect(some.sent).toHaveLength(1)
        // A fleet whose accounts all have their pass pending reads no row.
        for (const label of ["a.b@c+d-1", "treasury-2026", "x_y"]) yield* message(label, false)
        expect(yield* PendingPasses.unscheduled).toEqual([])
        // The purge: the processed pass and its reply go, in one statement; the pending stay.
        const purged = yield* statementsOf(PendingPasses.purgeProcessed)
        expect(purged.sent).toHaveLength(1)
        const left = yield* sql<{ readonly id: string | number; readonly processed: boolean }>`
          SELECT id, processed FROM cluster_messages ORDER BY id`
        expect(left.map((row) => [Number(row.id), row.processed])).toEqual([
          [1, false],
          [2, false],
          [3, false],
          [5, false],
          [6, false],
          [7, false],
          [8, false]
        ])
        expect(yield* sql`SELECT id FROM cluster_replies`).toEqual([])
        // The question reads the index of pending passes, not the whole table (a fleet's table
        // holds a pending pass of every account): the plan with sequential scans priced out, as a
        // table of many rows prices them, names it.
        yield* PendingPasses.indexPending
        const plan = (statement: Statement.Statement<unknown>) =>
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`SET LOCAL enable_seqscan = off`
              const [text, params] = statement.compile()
              const rows = yield* sql.unsafe<{ readonly "QUERY PLAN": string }>(`EXPLAIN ${text}`, params)
              return rows.map((row) => row["QUERY PLAN"]).join("\n")
            })
          )
        expect(yield* plan(PendingPasses.unscheduledStatement(sql))).toContain("ab_fleet_pending_passes")
      }).pipe(Effect.provide(services))
    })
  )
})
