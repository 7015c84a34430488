/**
 * An account's passes run in one loop (issue 38, section 3): the cluster delivers the loop's
 * message once, and a steady pass writes, delivers and answers no message of its own (before, each
 * pass wrote the next one, the storage read it back, and the reply took a transaction of four).
 * The loop's message stays pending while it runs, so the account keeps one; a second message of
 * the account ends at once; and a runner that takes the account over waits for the next pass the
 * row says is due, as the message delivered at its time did.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { statementsOf } from "../../store/test/support/statements.js"
import { entityIdOf } from "../src/index.js"
import { launchedRunner } from "./support/inProcessRunner.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"
import { until } from "./support/until.js"
import { passesEnded } from "./support/runtimeWork.js"

const label = "loop"
const credentials = { apiKey: "loop-key", secret: "loop-secret", passphrase: "loop-pass" }

/** The statements that write a pass message or its reply: what a pass of the old chain sent. */
const messageWrites = (sent: ReadonlyArray<string>) =>
  sent.filter((text) => /^INSERT INTO cluster_(messages|replies)\b|^UPDATE cluster_messages SET processed/.test(text))

describe.skipIf(postgresUrl === undefined)("the loop of an account's passes", () => {
  it.live(
    "steady passes write no message; a second message ends at once; a new owner waits for the pass that is due",
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
        const first = yield* launchedRunner({ db, exchangeUrl: exchange.url, interval: Duration.seconds(1) })
        yield* until("the account current", 60_000, () => Effect.runPromise(current(true)))
        const sql = Context.get(yield* Layer.build(database).pipe(Effect.orDie), SqlClient.SqlClient)
        const entity = entityIdOf(label)
        const messages = sql<{ readonly id: string; readonly processed: boolean }>`SELECT id::text AS id, processed
          FROM cluster_messages WHERE entity_id = ${entity} AND kind = 0 ORDER BY id`.pipe(Effect.orDie)
        const pending = Effect.map(messages, (rows) => rows.filter((row) => !row.processed).length)

        // Steady: passes one after another, and not one message written or answered for them.
        yield* Effect.sleep("1500 millis")
        const before = yield* passesEnded
        const { sent } = yield* statementsOf(Effect.sleep("4 seconds"))
        const steady = (yield* passesEnded) - before
        console.info(
          `pass loop: ${steady} steady passes, ${sent.length} statements, ${messageWrites(sent).length} message writes`
        )
        expect(steady).toBeGreaterThanOrEqual(2)
        if (process.env.DUMP_STATEMENTS) {
          const counts = new Map<string, number>()
          for (const text of sent) counts.set(text.slice(0, 90), (counts.get(text.slice(0, 90)) ?? 0) + 1)
          console.info([...counts].map(([text, n]) => `${n}\t${text}`).join("\n"))
        }
        expect(messageWrites(sent)).toEqual([])
        expect(yield* pending).toBe(1)

        // A second message of the account, due now, as the reconciler's beside a pass delivered
        // again would be: it ends at once (processed), and the loop goes on alone.
        const copied = yield* sql<{ readonly id: string }>`
          INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag, payload,
            headers, trace_id, span_id, sampled, processed, request_id, deliver_at)
          SELECT id + 7777, message_id || '-again', shard_id, entity_type, entity_id, kind, tag,
            jsonb_set(payload::jsonb, '{at}', to_jsonb(${Date.now()}::bigint))::text,
            headers, trace_id, span_id, sampled, false, id + 7777, ${Date.now()}
          FROM cluster_messages WHERE entity_id = ${entity} AND processed = false AND kind = 0
          RETURNING id::text AS id`.pipe(Effect.orDie)
        expect(copied).toHaveLength(1)
        // Processed, or processed and already purged: the reconciler deletes processed passes
        // every round (every second here), and only those.
        yield* until("the second message processed", 20_000, () =>
          Effect.runPromise(
            Effect.map(messages, (rows) => !rows.some((row) => row.id === copied[0]?.id && !row.processed))
          )
        )
        const afterCopy = yield* passesEnded
        for (let i = 0; i < 3; i++) {
          yield* Effect.sleep("1 second")
          expect(yield* pending).toBe(1)
        }
        expect((yield* passesEnded) - afterCopy).toBeGreaterThanOrEqual(2)

        // Hand-over: the first runner stops just after a pass began, with the next one due
        // further off than the hand-over takes; the second runner waits for it.
        yield* Fiber.interrupt(first)
        yield* sql`UPDATE fleet_accounts SET next_pass = ${Date.now() + 8_000} WHERE label = ${label}`.pipe(
          Effect.orDie
        )
        const due = Number(
          (yield* sql<{ readonly next_pass: string }>`SELECT next_pass FROM fleet_accounts WHERE label = ${label}`.pipe(
            Effect.orDie
          ))[0]?.next_pass
        )
        const stoppedAt = Date.now()
        const seen = exchange.requests().length
        yield* launchedRunner({ db, exchangeUrl: exchange.url, interval: Duration.seconds(1) })
        yield* until("the new owner's first request", 60_000, () => exchange.requests().length > seen)
        const firstAfter = Math.min(
          ...exchange
            .requests()
            .slice(seen)
            .map((request) => request.at)
        )
        console.info(
          `pass loop: next pass due ${due - stoppedAt} ms after the stop, first request after ${firstAfter - stoppedAt} ms`
        )
        expect(firstAfter).toBeGreaterThanOrEqual(due)
        expect(yield* pending).toBe(1)
      }).pipe(Effect.scoped),
    120_000
  )
})
