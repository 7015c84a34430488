/**
 * The shared budget survives a Redis that restarts empty: three runner processes, 12 accounts,
 * `--ip-rps 2` against a loopback exchange that allows each source address 2 requests a second
 * and operation (low enough for runners on a busy machine to keep the budget full). The runners'
 * Redis (a real redis-server) is killed and started again empty on the same port, back within a
 * tenth of a second, six times in the middle of the first sync, and emptied by FLUSHALL after
 * each restart.
 * The exchange still counts the last second's requests when the budget's log is gone; the
 * runners must not take the empty Redis for a fresh budget. The exchange refuses nothing, and
 * every account's store equals its exchange field for field.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { freePorts } from "./support/ports.js"
import { redisServerBin, scopedRedisServer } from "./support/redisServer.js"
import { scopedBills } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 12
const ipRps = 2
const restarts = 6
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `restart-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `restart-${String(i).padStart(2, "0")}`

describe.skipIf(postgresUrl === undefined || redisServerBin === undefined)(
  "the shared budget and a Redis restart",
  () => {
    it.live(
      `Redis restarted empty ${restarts} times mid-sync: no 429 from the exchange, every account exact`,
      () =>
        Effect.gen(function* () {
          const { db, exchange, current, exact } = yield* seededFleet({
            accounts,
            labelOf,
            credentialsOf,
            perAddress: { limit: ipRps, windowMillis: 1000 },
            exchangeOf: (i, now) => ({
              generate: {
                seed: 300 + i,
                funding: 200 + 13 * i,
                spot: 250 + 11 * i,
                startMillis: now - 3 * day,
                endMillis: now - 60_000
              }
            })
          })
          const redis = yield* scopedRedisServer
          const ports = yield* freePorts(3)
          const runners = yield* Effect.forEach(ports, (port, i) =>
            scopedBills(
              `r${i}`,
              [
                "run",
                "--db",
                db,
                "--redis",
                redis.url,
                "--port",
                String(port),
                "--interval",
                "1s",
                "--ip-rps",
                String(ipRps),
                "--pages-per-pass",
                "2"
              ],
              { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
            )
          )
          const logs = () => runners.map((r) => `--- ${r.name}\n${r.stderr().slice(-1_500)}`).join("\n")
          const sent = () => exchange.requests().filter((request) => request.operation !== undefined).length
          // The budget in full use: the runners have sent for a while.
          yield* until("the runners sending", 120_000, () => sent() >= 24).pipe(
            Effect.tapDefect(() => Effect.sync(() => console.error(logs())))
          )
          // Back in use before the next loss.
          const inUse = Effect.suspend(() => {
            const before = sent()
            return until("requests after the loss", 30_000, () => sent() >= before + 2 * ipRps)
          })
          for (let restart = 0; restart < restarts; restart++) {
            yield* redis.restart()
            yield* inUse
            // Emptied with the connections kept: the runners ask the empty Redis at once, where
            // after a restart they first reconnect.
            yield* redis.flush()
            yield* inUse
          }
          const restartedAt = sent()
          yield* until("every account brought current", 240_000, () => Effect.runPromise(current(true))).pipe(
            Effect.tapDefect(() => Effect.sync(() => console.error(logs())))
          )
          yield* exact
          const refused = exchange.requests().filter((request) => request.status === 429)
          console.info(
            `fleet redis restart test: ${sent()} requests (${restartedAt} by the last restart), ${refused.length} × 429`
          )
          expect(refused, logs()).toEqual([])
          // Whether a runner logs the loss depends on whether one of its reconnections falls while
          // Redis is down: a restart back within 0.1 s can close and reopen its connection with no
          // failed attempt between (CI saw a runner with no line). FleetShutdown keeps Redis away
          // and asserts the line and its cause; here, a runner that said it lost the budget says
          // it is back, by itself, and ioredis never speaks unasked.
          for (const runner of runners) {
            const said = runner.stderr()
            const lines = said.split("\n").filter((line) => line.includes("the shared budget at"))
            expect(lines.filter((line) => / is lost \(/.test(line)).length, lines.join("\n")).toBe(
              lines.filter((line) => /message="the shared budget at \S+ is back"$/.test(line)).length
            )
            expect(said).not.toContain("[ioredis] Unhandled error event")
          }
        }).pipe(Effect.scoped),
      420_000
    )
  }
)
