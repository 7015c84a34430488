/**
 * A hand-over as the exchange sees it, with two runners in this process on fast cluster timings
 * (so that an account can move well within one per-key window): runner A passes every account,
 * B joins, A leaves as SIGTERM makes it leave. The new owner cannot see what the old one sent
 * in its last window, so its first request for the account comes a whole window after the old
 * owner's last (by the senders' own ACCESS-TIMESTAMPs), and the exchange refuses nothing.
 */
import { SlidingWindow } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { AddressBudget, FleetCipher, FleetRunner } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { handOvers } from "./support/handOvers.js"
import type { PassEvent } from "./support/runnerProcess.js"
import { postgresUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 6
const credentialsOf = (i: number) => ({ apiKey: `key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `acct-${i}`

/** Shards move within a few hundred ms: assignments refreshed and messages polled every 100 ms. */
const fast = {
  shardsPerGroup: 16,
  entityMessagePollInterval: Duration.millis(100),
  refreshAssignmentsInterval: Duration.millis(100),
  runnerHealthCheckInterval: Duration.seconds(1),
  shardLockRefreshInterval: Duration.seconds(1),
  shardLockExpiration: Duration.seconds(5),
  entityTerminationTimeout: Duration.seconds(2)
}

describe.skipIf(postgresUrl === undefined)("a hand-over between runners", () => {
  it.live(
    "the new owner's first request for an account comes a per-key window after the old owner's last",
    () => {
      // The runners' pass brackets, as `bills fleet run` logs them (runner and account annotated).
      const events: Array<PassEvent> = []
      const warnings: Array<string> = []
      const capture = Logger.make(({ annotations, date, logLevel, message }) => {
        const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
        const runner = Option.getOrUndefined(HashMap.get(annotations, "runner"))
        const account = Option.getOrUndefined(HashMap.get(annotations, "account"))
        if ((text === "pass begins" || text === "pass ends") && runner !== undefined && account !== undefined) {
          events.push({
            runner: String(runner),
            account: String(account),
            event: text === "pass begins" ? "begins" : "ends",
            at: date.getTime()
          })
        } else if (logLevel._tag === "Warning" || logLevel._tag === "Error") warnings.push(text)
      })
      return Effect.gen(function* () {
        const { db, exchange } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: {
              seed: 40 + i,
              funding: 1_000,
              spot: 1_000,
              startMillis: now - 86_400_000,
              endMillis: now - 60_000
            }
          })
        })
        const cipher = FleetCipher.layer(Redacted.make(testKey))

        const [portA = 0, portB = 0] = yield* freePorts(2)
        const runner = (port: number) =>
          FleetRunner.layer({
            db,
            port,
            interval: Duration.millis(500),
            pagesPerPass: 1,
            sharding: fast,
            config: { baseUrl: exchange.url }
          }).pipe(Layer.provide(AddressBudget.layerNone), Layer.provide(cipher), Layer.orDie)
        const passed = (port: number, label: string) =>
          events.some((e) => e.runner === `127.0.0.1:${port}` && e.account === label && e.event === "ends")

        const a = yield* Scope.make()
        const b = yield* Scope.make()
        yield* Effect.addFinalizer(() => Effect.zipRight(Scope.close(b, Exit.void), Scope.close(a, Exit.void)))
        yield* Layer.buildWithScope(runner(portA), a)
        yield* until("runner A's passes of every account", 60_000, () =>
          Array.from({ length: accounts }, (_, i) => labelOf(i)).every((label) => passed(portA, label))
        )
        // A leaves in the middle of its walks, B starts: every account moves to B.
        yield* Scope.close(a, Exit.void)
        yield* Layer.buildWithScope(runner(portB), b)
        yield* until("runner B's passes of every account", 60_000, () =>
          Array.from({ length: accounts }, (_, i) => labelOf(i)).every((label) => passed(portB, label))
        )
        yield* Scope.close(b, Exit.void)

        const window = SlidingWindow.defaultRateLimit === false ? 0 : SlidingWindow.defaultRateLimit.windowMillis
        const handed = handOvers(events, exchange.requests(), (label) => credentialsOf(Number(label.slice(5))).apiKey)
        console.info(
          `fleet hand-over test: ${handed.length} hand-overs, ${handed.map((each) => each.gap).join(", ")} ms from the old owner's last request to the new owner's first`
        )
        expect(new Set(handed.map((each) => each.account)).size, warnings.join("\n")).toBe(accounts)
        expect(handed.filter((each) => each.gap < window)).toEqual([])
        expect(exchange.requests().filter((request) => request.status === 429)).toEqual([])
      }).pipe(
        Effect.scoped,
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
        // The pass brackets are logged at DEBUG (a pass that finds nothing is no news at INFO).
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
    },
    120_000
  )
})
