/**
 * A fleet's first sync of many futures accounts costs what one account's does (issue 52, section
 * 4): nothing says where a futures history starts, so the walk proves each 100 days back to the
 * interface's opening empty, one request each; those slices are sent once per account, never again
 * after a runner is SIGKILLed in the middle of them (its accounts move to the other runner), after
 * it is started again (half of them move back, a hand-over of passes in flight), or after a pass
 * cut at --pages-per-pass. Each committed page holds the walk's cursor, empty pages included, and
 * the next owner resumes from it: the only request a crash can cost again is the one in flight.
 */
import { contractHistoryStartMillis, contractMaxSpanMillis } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetStatus } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { scopedBills } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 6
const credentialsOf = (i: number) => ({ apiKey: `empty-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `empty-${i}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a fleet's first sync of futures accounts", () => {
  it.live(
    "the empty past's slices are sent once per account across a SIGKILL, a restart and cut passes",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          latency: { millis: 20 },
          exchangeOf: (i, now) => ({
            generate: { seed: 90 + i, funding: 10, spot: 10, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        const slices = Math.ceil((Date.now() - contractHistoryStartMillis) / contractMaxSpanMillis)
        const ports = yield* freePorts(2)
        // A budget of 4 contract requests a second for the address: the walks take about a minute,
        // time to cut them; the interval is long, so every contract request is the first sync's.
        const start = (name: string, port: number | undefined) =>
          scopedBills(
            name,
            [
              "run",
              "--db",
              db,
              "--port",
              String(port),
              "--interval",
              "10m",
              "--pages-per-pass",
              "5",
              "--redis",
              redisUrl ?? "",
              "--ip-rps",
              "4"
            ],
            { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
          )
        const contract = () => exchange.requests().filter((request) => request.operation === "contractBills")
        const first = yield* start("a", ports[0])
        const second = yield* start("b", ports[1])
        const log = () => [first, second].map((runner) => runner.stderr().slice(-1_500)).join("\n")
        const total = accounts * slices
        yield* until("a third of the slices sent", 90_000, () => contract().length >= total / 3).pipe(
          Effect.tapDefect(() => Effect.sync(() => console.error(log())))
        )
        const atKill = contract().length
        first.proc.kill("SIGKILL")
        yield* Effect.promise(() => first.exited)
        yield* until("two thirds of the slices sent", 90_000, () => contract().length >= (2 * total) / 3)
        const atRestart = contract().length
        const again = yield* start("a2", ports[0])
        const covered = FleetStatus.all.pipe(
          Effect.map((rows) => rows.filter((row) => row.contract.coveredTo !== null).length),
          Effect.provide(database),
          Effect.orDie
        )
        yield* until("every futures account walked to now", 150_000, () =>
          Effect.runPromise(covered).then((n) => n === accounts)
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(`${log()}\n${again.stderr().slice(-1_500)}`))))
        // Time for a request resent by mistake (a pass begun again from the start) to show.
        yield* Effect.sleep("3 seconds")
        const perAccount = Array.from(
          { length: accounts },
          (_, i) => contract().filter((request) => request.key === credentialsOf(i).apiKey).length
        )
        console.info(
          `futures first sync: ${slices} slices to the opening; per account ${perAccount.join(", ")} requests (${contract().length} in all for ${total}); SIGKILL at ${atKill}, restart at ${atRestart}`
        )
        // Which runners each account's passes ran on, in order: every account left the killed one.
        const owners = Array.from({ length: accounts }, (_, i) =>
          [...first.events, ...second.events, ...again.events]
            .filter((event) => event.account === labelOf(i) && event.event === "begins")
            .sort((x, y) => x.at - y.at)
            .map((event) => event.runner)
            .filter((runner, k, all) => k === 0 || all[k - 1] !== runner)
            .join(">")
        )
        console.info(`futures first sync: owners ${owners.join(", ")}`)
        // The one request a move can cost again is the one in flight when the account left its
        // runner (killed, or its shard taken by the runner that joined): its answer was never
        // committed. Every other slice is sent once: a walk begun again from its start would send
        // five or more again (a pass holds five pages), and a lost cursor all 33.
        const moves = owners.map((chain) => chain.split(">").length - 1)
        for (const [i, sent] of perAccount.entries()) {
          expect(sent, labelOf(i)).toBeGreaterThanOrEqual(slices)
          expect(sent, `${labelOf(i)}, moved ${moves[i]} times`).toBeLessThanOrEqual(slices + (moves[i] ?? 0))
        }
        expect(moves.some((count) => count >= 1)).toBe(true)
        expect(exchange.requests().filter((request) => request.status === 429)).toEqual([])
      }).pipe(Effect.scoped),
    300_000
  )
})
