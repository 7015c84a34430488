/**
 * One chain of passes per account, at one statement fewer a pass (issue 38, section 3, seventh
 * round): before scheduling the next pass, a pass counted the account's pending passes, so that
 * a second chain (a pass delivered again after its runner died with the next one written, or the
 * reconciler's beside one) ends where it meets the first. A pass the entity scheduled itself is
 * its chain's only pending pass, so a steady chain now sends no COUNT; a pass it did not
 * schedule is still counted, and two chains still become one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { statementsOf } from "../../store/test/support/statements.js"
import { entityIdOf, FleetMetrics } from "../src/index.js"
import { launchedRunner } from "./support/inProcessRunner.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"
import { until } from "./support/until.js"

const label = "chain"
const credentials = { apiKey: "chain-key", secret: "chain-secret", passphrase: "chain-pass" }

/** Passes ended in this process so far. */
const passesEnded = Effect.reduce(["done", "more", "failed"], 0, (sum, outcome) =>
  Effect.map(Metric.value(Metric.tagged(FleetMetrics.passes, "outcome", outcome)), (state) => sum + state.count)
)

describe.skipIf(postgresUrl === undefined)("the chain of an account's passes", () => {
  it.live(
    "a steady chain counts no pending passes; a pass it did not schedule is counted, and its chain ends",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database, current } = yield* seededFleet({
          accounts: 1,
          labelOf: () => label,
          credentialsOf: () => credentials,
          perAddress: false,
          exchangeOf: (_, now) => ({
            generate: { seed: 21, funding: 20, spot: 20, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        yield* launchedRunner({ db, exchangeUrl: exchange.url, interval: Duration.seconds(1) })
        yield* until("the account current", 60_000, () => Effect.runPromise(current(true)))
        const sql = Context.get(yield* Layer.build(database).pipe(Effect.orDie), SqlClient.SqlClient)
        const entity = entityIdOf(label)
        // The test's own count, in words of its own: the runner's COUNT is what is counted below.
        const pending = Effect.map(
          sql<{ readonly pending: number }>`SELECT count(*)::int AS pending FROM cluster_messages
            WHERE entity_id = ${entity} AND processed = false AND kind = 0`,
          (rows) => rows[0]?.pending ?? 0
        ).pipe(Effect.orDie)

        // Steady: the chain's passes, one after another, count nothing. (The first pass, the
        // reconciler's, counts as it ends, just after the account is current.)
        yield* Effect.sleep("1500 millis")
        const before = yield* passesEnded
        const { sent } = yield* statementsOf(Effect.sleep("4 seconds"))
        const steady = (yield* passesEnded) - before
        const counts = sent.filter((text) => text.startsWith("SELECT COUNT(*) AS n FROM cluster_messages"))
        console.info(`pass chain: ${steady} steady passes, ${counts.length} pending-pass counts`)
        expect(steady).toBeGreaterThanOrEqual(2)
        expect(counts).toEqual([])

        // A second chain: the pending pass written again under another time, due now, as the
        // reconciler's or a pass delivered again would be. The entity did not schedule it.
        const copied = yield* sql<{ readonly id: string }>`
          INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag, payload,
            headers, trace_id, span_id, sampled, processed, request_id, deliver_at)
          SELECT id + 7777, message_id || '-again', shard_id, entity_type, entity_id, kind, tag,
            jsonb_set(payload::jsonb, '{at}', to_jsonb(${Date.now()}::bigint))::text,
            headers, trace_id, span_id, sampled, false, id + 7777, ${Date.now()}
          FROM cluster_messages WHERE entity_id = ${entity} AND processed = false AND kind = 0
          RETURNING id`.pipe(Effect.orDie)
        expect(copied).toHaveLength(1)
        expect(yield* pending).toBe(2)
        // The second chain ends where it meets the first: one pass pending again, and it stays so.
        const { sent: merged } = yield* statementsOf(
          until("one pending pass again", 20_000, () => Effect.runPromise(Effect.map(pending, (n) => n === 1)))
        )
        expect(merged.filter((text) => text.startsWith("SELECT COUNT(*) AS n FROM cluster_messages")).length).toBe(1)
        for (let i = 0; i < 4; i++) {
          yield* Effect.sleep("1 second")
          expect(yield* pending).toBe(1)
        }
      }).pipe(Effect.scoped),
    120_000
  )
})
