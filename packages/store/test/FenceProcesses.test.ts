/**
 * The fence between two processes on PostgreSQL, under its default READ COMMITTED: process A
 * holds the lease and begins its commit (one statement: the fenced cursor, the bills inserted
 * behind it), while another holder's takeover of the lease is under way in a transaction not yet
 * committed: A's statement waits for that row. When the takeover commits, A's commit must fail
 * with `SyncBusy` and insert none of its bills: PostgreSQL checks the fence again on the row's
 * latest version, and the bills go in only behind what the fence let through. A check made on
 * the statement's snapshot (a `SELECT` of the owner, before or inside the write) would let A
 * through here.
 *
 * (Before the page became one statement, A inserted its bills first and waited on a bill row;
 * now A takes the sync row first, so a holder whose commit has begun cannot be displaced in the
 * middle of it: a takeover either commits before A's statement reaches the row, as here, or
 * waits for A's commit.)
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import { engines } from "./support/engines.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const childScript = path.join(here, "support/leaseChild.ts")

interface Child {
  /** Resolves when the child has printed `line`. */
  readonly printed: (line: string) => Effect.Effect<void>
  /** The child's output once it exits. */
  readonly done: Effect.Effect<string>
}

const startChild = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync((): Child => {
      const proc = spawn(
        process.execPath,
        ["--conditions=@account-bills/source", "--import", "tsx", childScript, ...args],
        {
          cwd: root,
          stdio: ["ignore", "pipe", "pipe"]
        }
      )
      let out = ""
      let err = ""
      proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk
      })
      proc.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        err += chunk
      })
      const exited = new Promise<void>((resolve) => proc.on("close", () => resolve()))
      return {
        printed: (line) =>
          Effect.repeat(
            Effect.sync(() => out.split("\n").includes(line) || proc.exitCode !== null),
            { until: (seen) => seen, schedule: Schedule.spaced("20 millis") }
          ).pipe(Effect.asVoid),
        done: Effect.promise(() => exited).pipe(Effect.map(() => `${out}${err}`))
      }
    }),
    () => Effect.void
  )

const postgres = engines.find((engine) => engine.name === "postgres")

describe.skipIf(postgres === undefined)("the fence between two processes on PostgreSQL", () => {
  it.live(
    "A begins its commit while B's takeover is uncommitted; once B commits, A's commit fails with SyncBusy",
    () =>
      Effect.gen(function* () {
        if (postgres === undefined) return
        const target = yield* postgres.fresh
        if (target._tag !== "Postgres") return
        yield* Effect.provide(
          Effect.flatMap(BillsStore, (store) =>
            store.register(StoreAccount.make(Redacted.make("fence-test-key"), "main"))
          ),
          StoreLayer.forTarget(target)
        )
        const sql = yield* PgClient.make({ url: Redacted.make(target.url) })
        const spotRows = sql`SELECT bill_id FROM ab_bills WHERE account = 'main' AND kind = 'spot' ORDER BY bill_id`
        // A takes the lease, then waits a second before its commit.
        const a = yield* startChild([target.url, "A", "60000", "1", "A-1", "0", "99000", "1000"])
        yield* a.printed("leased")
        yield* sql.withTransaction(
          Effect.gen(function* () {
            // B takes the lease over (as a holder does once A's has run out) and writes its page.
            yield* sql`UPDATE ab_sync SET lease_owner = 'B', lease_until = ${Date.now() + 60_000}
            WHERE account = 'main' AND kind = 'spot'`
            yield* sql`INSERT INTO ab_bills (account, kind, bill_id, c_time, coin_id, coin_name, biz_type, delta_amount, after_amount, fees, raw)
            VALUES ('main', 'spot', '2', 1000, 2, 'USDT', 'deposit', '1', '1', '0', '{}')`
            yield* sql`UPDATE ab_sync SET covered_from = 0, covered_to = 3000, cursor = NULL
            WHERE account = 'main' AND kind = 'spot' AND lease_owner = 'B'`
            // A's commit has begun, and waits for the row B holds.
            yield* Effect.repeat(
              sql<{
                readonly n: string
              }>`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              { until: (rows) => Number(rows[0]?.n) >= 1, schedule: Schedule.spaced("20 millis") }
            )
          })
        )
        expect(yield* a.done).toBe("leased\nSyncBusy\n")
        const [state] = yield* sql<{
          readonly cursor: string | null
          readonly covered_from: string | null
          readonly covered_to: string | null
          readonly lease_owner: string | null
        }>`SELECT cursor, covered_from, covered_to, lease_owner FROM ab_sync WHERE account = 'main' AND kind = 'spot'`
        expect(state).toEqual({ cursor: null, covered_from: "0", covered_to: "3000", lease_owner: "B" })
        expect((yield* spotRows).map((row) => row.bill_id)).toEqual(["2"])
      }).pipe(Effect.scoped, Effect.provide(Reactivity.layer)),
    60_000
  )
})
