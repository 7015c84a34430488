/**
 * A runner stops when told, whatever its servers do: SIGTERM 3 s into an outage of Redis, of
 * PostgreSQL, or with the exchange unreachable, and the runner exits 0 within 5 s. The outages
 * are real to the runner: its connections go through a TCP proxy that is cut (open connections
 * reset, new ones refused). A Redis outage is said once, with its cause, and ioredis prints
 * nothing of its own.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { scopedProxy, through } from "./support/tcpProxy.js"
import { until } from "./support/until.js"

const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `stop-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })

type Fault = "redis" | "postgres" | "exchange" | "none"

const stopDuring = (fault: Fault) =>
  Effect.gen(function* () {
    const { db, exchange } = yield* seededFleet({
      accounts: 2,
      labelOf: (i) => `stop-${i}`,
      credentialsOf,
      perAddress: false,
      exchangeOf: (i, now) => ({
        generate: { seed: 90 + i, funding: 100, spot: 100, startMillis: now - day, endMillis: now - 60_000 }
      })
    })
    const pg = yield* scopedProxy(db)
    const redis = yield* scopedProxy(redisUrl ?? "")
    const [port] = yield* freePorts(1)
    const runner = yield* scopedBills(
      fault,
      [
        "run",
        "--db",
        through(db, pg.port),
        "--redis",
        through(redisUrl ?? "", redis.port),
        "--ip-rps",
        "20",
        "--interval",
        "1s",
        "--port",
        String(port)
      ],
      { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: fault === "exchange" ? "http://127.0.0.1:9" : exchange.url }
    )
    // Passes that end first, for a server to go away under; with the exchange unreachable a pass
    // does not end soon (it retries), so one that has begun is the moment.
    yield* fault === "exchange"
      ? until("a pass", 60_000, () => runner.events.some((event) => event.event === "begins"))
      : until("passes", 60_000, () => runner.events.filter((event) => event.event === "ends").length >= 2)
    if (fault === "redis") yield* Effect.promise(() => redis.cut())
    if (fault === "postgres") yield* Effect.promise(() => pg.cut())
    if (fault !== "none") yield* Effect.sleep("3 seconds")
    const told = Date.now()
    runner.proc.kill("SIGTERM")
    const code = yield* Effect.promise(() =>
      Promise.race([runner.exited, new Promise<"alive">((resolve) => setTimeout(() => resolve("alive"), 10_000))])
    )
    const took = Date.now() - told
    console.info(`fleet shutdown test: SIGTERM with ${fault} away, exit ${code} after ${took} ms`)
    expect(code, runner.stderr().slice(-2_000)).toBe(0)
    expect(took).toBeLessThanOrEqual(5_000)
    return { log: runner.stderr(), took }
  }).pipe(Effect.scoped)

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a runner told to stop", () => {
  it.live(
    "with every server up: hands its accounts over well before the 4 s deadline, and says so",
    () =>
      Effect.gen(function* () {
        const { log, took } = yield* stopDuring("none")
        // The deadline is 4 s, and a runner that meets it has given nothing back (its accounts
        // wait for their locks to run out). A clean hand-over with passes in flight takes the
        // cluster's half second for a request on its way, and well under a second more to
        // release every shard at once; by the runner's own stamps, to be clear of the time this
        // loaded machine takes to deliver a signal and see a process exit.
        const stamp = (message: string) =>
          Date.parse(new RegExp(`timestamp=(\\S+) [^\\n]*message="${message}"`).exec(log)?.[1] ?? "")
        const handOver =
          stamp("runner handed its accounts over") - stamp("runner told to stop: it hands its accounts over")
        console.info(`fleet shutdown test: the runner handed its accounts over in ${handOver} ms (its own stamps)`)
        expect(handOver, log.slice(-2_000)).toBeLessThan(2_000)
        expect(took, log.slice(-2_000)).toBeLessThan(3_000)
        expect(log).not.toContain("could not hand its accounts over")
      }),
    90_000
  )
  it.live(
    "with Redis away: exits 0 within 5 s, and says once that the budget is lost, with its cause",
    () =>
      Effect.gen(function* () {
        const { log } = yield* stopDuring("redis")
        expect(log.match(/the shared budget at \S+ is lost \([^)]*ECONN[A-Z]+/g) ?? []).toHaveLength(1)
        expect(log).not.toContain("[ioredis] Unhandled error event")
      }),
    90_000
  )
  it.live("with PostgreSQL away: exits 0 within 5 s", () => Effect.asVoid(stopDuring("postgres")), 90_000)
  it.live("with the exchange unreachable: exits 0 within 5 s", () => Effect.asVoid(stopDuring("exchange")), 90_000)
})
