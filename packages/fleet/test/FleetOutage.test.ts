/**
 * Outages longer than a blink (issue 29 §6): two runners in the middle of their accounts' first
 * syncs lose PostgreSQL for 30 s and Redis for 60 s (both cut at once, through TCP proxies:
 * open connections reset, new ones refused). No request leaves without a grant while the budget
 * is away (the exchange refuses nothing for its limits), and once both are back every account is
 * current, field for field, within the bound the docs give (a minute after the last server is
 * back): neither the cluster's saved replies nor its ten-minute re-read of a message read but not
 * processed leaves an account stalled. Each runner's `/readyz` says 503, naming PostgreSQL and
 * Redis, while they are away, and 200 again once they are back.
 */
import { BillsStore } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { type RunnerProcess, scopedRunner } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl } from "./support/services.js"
import { scopedProxy, through } from "./support/tcpProxy.js"

const accounts = 4
const ipRps = 10
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `out-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `out-${i}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a fleet through long outages", () => {
  it.live(
    "PostgreSQL away 30 s and Redis 60 s mid-sync: nothing sent without a grant, every account current and exact after",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database, current } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: { limit: ipRps, windowMillis: 1_000 },
          exchangeOf: (i, now) => ({
            generate: { seed: 70 + i, funding: 1_500, spot: 2_500, startMillis: now - 5 * day, endMillis: now - 60_000 }
          })
        })
        const pg = yield* scopedProxy(db)
        const redis = yield* scopedProxy(redisUrl ?? "")
        const ports = yield* freePorts(4)
        const [clusterPorts, metricsPorts] = [ports.slice(0, 2), ports.slice(2)]
        const runners: ReadonlyArray<RunnerProcess> = yield* Effect.forEach([0, 1], (i) =>
          scopedRunner(`o${i}`, {
            db: through(db, pg.port),
            exchangeUrl: exchange.url,
            port: clusterPorts[i],
            metricsPort: metricsPorts[i],
            redis: { url: through(redisUrl ?? "", redis.port), ipRps },
            interval: "2s"
          })
        )
        const wait = (what: string, millis: number, predicate: Effect.Effect<boolean>) =>
          Effect.gen(function* () {
            const deadline = Date.now() + millis
            while (!(yield* predicate)) {
              if (Date.now() > deadline) {
                const log = runners.map((each) => `--- ${each.name}\n${each.stderr().slice(-3_000)}`).join("\n")
                return yield* Effect.dieMessage(`timed out waiting for ${what}\n${log}`)
              }
              yield* Effect.sleep("250 millis")
            }
          })
        /** Each runner's readiness: its status and the body's reasons; a runner not listening says why. */
        const readiness = Effect.forEach(runners, (runner, i) =>
          Effect.tryPromise(async () => {
            const response = await fetch(`http://127.0.0.1:${metricsPorts[i]}/readyz`)
            return { status: response.status, body: await response.text() }
          }).pipe(
            Effect.catchAll((error) =>
              Effect.succeed({
                status: 0,
                body: `${runner.name} does not answer (${String(error.error)}; exit ${runner.proc.exitCode ?? runner.proc.signalCode ?? "none yet"})\n${runner.stderr().slice(-3_000)}`
              })
            )
          )
        )
        // Both runners serve their probes and hold shards before anything is cut: a runner still
        // starting has no server to say 503 from.
        yield* wait(
          "both runners ready",
          90_000,
          Effect.map(readiness, (each) => each.every(({ status }) => status === 200))
        )
        const ended = Effect.sync(() => runners.flatMap((each) => each.events).filter((e) => e.event === "ends").length)
        // Mid-sync: some passes have ended, the first syncs (40 pages a kind) are far from done.
        yield* wait(
          "passes",
          90_000,
          Effect.map(ended, (n) => n >= 4)
        )
        yield* Effect.promise(() => Promise.all([pg.cut(), redis.cut()]))
        const cutAt = Date.now()
        const duringCut = exchange.requests().length
        // The checks give up after 2 s each; the runners see both servers gone within a few.
        yield* Effect.sleep("8 seconds")
        for (const { status, body } of yield* readiness) {
          expect(status, body).toBe(503)
          expect(body).toMatch(/postgres: /)
          expect(body).toMatch(/redis: /)
        }
        yield* Effect.sleep(Math.max(0, cutAt + 30_000 - Date.now()))
        yield* Effect.promise(() => pg.restore())
        yield* Effect.sleep(Math.max(0, cutAt + 60_000 - Date.now()))
        // Without the budget nothing was sent but what was granted before the cut and in flight.
        const sentWithoutRedis = exchange.requests().length - duringCut
        yield* Effect.promise(() => redis.restore())
        const back = Date.now()

        yield* wait("every account current after the outage", 120_000, current())
        const took = Date.now() - back
        console.info(
          `fleet outage test: ${sentWithoutRedis} requests while Redis was away; every account current ${(took / 1000).toFixed(1)} s after it was back`
        )
        expect(sentWithoutRedis).toBeLessThanOrEqual(2 * ipRps)
        expect(exchange.requests().filter((request) => request.status === 429)).toEqual([])
        expect(took).toBeLessThanOrEqual(60_000)
        for (const { status, body } of yield* readiness) expect(status, body).toBe(200)
        yield* Effect.gen(function* () {
          const store = yield* BillsStore
          for (let i = 0; i < accounts; i++) {
            const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
            if (fake === undefined) return yield* Effect.dieMessage("no exchange")
            const spot = yield* store.spotPage(labelOf(i), { limit: 1_000_000 })
            expect(spot.map((bill) => JSON.stringify(bill.raw)).sort()).toEqual(
              (yield* fake.bills("spot")).map((bill) => JSON.stringify(bill)).sort()
            )
          }
        }).pipe(Effect.provide(database))
      }).pipe(Effect.scoped),
    300_000
  )
})
