/**
 * The fence between two processes on PostgreSQL, under its default READ COMMITTED: process A
 * passes every check of its commit, then waits inside its transaction (on a bill row the test
 * holds locked); meanwhile its lease runs out, process B takes the lease and commits. When A
 * goes on, its commit must fail with `SyncBusy` and leave B's work as it was. A check made by a
 * `SELECT` before the write would let A through here.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Data from "effect/Data"
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

class RolledBack extends Data.TaggedError("RolledBack")<{ readonly a: Child; readonly bOut: string }> {}

const postgres = engines.find((engine) => engine.name === "postgres")

describe.skipIf(postgres === undefined)("the fence between two processes on PostgreSQL", () => {
  it.live(
    "A waits mid-commit while its lease runs out and B takes it and commits; A's commit then fails with SyncBusy",
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
        // The test's transaction holds bill 1 uncommitted: A's insert of bill 1 waits for it.
        const outcome = yield* Effect.either(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO ab_bills (account, kind, bill_id, c_time, coin_id, coin_name, biz_type, delta_amount, after_amount, fees, raw)
                VALUES ('main', 'spot', '1', 1000, 2, 'USDT', 'deposit', '1', '1', '0', '{}')`
              const a = yield* startChild([target.url, "A", "300", "1", "A-1", "0", "99000"])
              yield* a.printed("leased")
              // A is inside its commit, waiting for the test's lock.
              yield* Effect.repeat(
                sql<{
                  readonly n: string
                }>`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
                { until: (rows) => Number(rows[0]?.n) >= 1, schedule: Schedule.spaced("20 millis") }
              )
              const b = yield* startChild([target.url, "B", "60000", "2", "B-1", "0", "3000"])
              const bOut = yield* b.done
              // Failing rolls the test's transaction back: bill 1 is free, and A goes on.
              return yield* Effect.fail(new RolledBack({ a, bOut }))
            })
          )
        )
        if (outcome._tag === "Right" || !(outcome.left instanceof RolledBack)) return yield* Effect.die(outcome)
        const { a, bOut } = outcome.left
        expect(bOut).toBe("leased\ncommitted 1\n")
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
