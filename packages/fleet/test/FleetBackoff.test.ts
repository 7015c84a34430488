/**
 * The backoff of refused credentials outlives whoever passes the account: the count of passes
 * refused in a row is kept in the account's row, so it goes on doubling when the entity is made
 * again (a fresh `FleetAccounts` reads the same row) and when the runner that passed the account
 * stops and another takes it over.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetAccounts, FleetCipher, FleetDatabase } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { type RunnerProcess, scopedRunner } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { freshDatabase, postgresUrl, redactedOf, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const credentials = { apiKey: "backoff-key", secret: "secret", passphrase: "pass" }
const refusedCredentials = redactedOf(credentials, "not-the-secret")

/** The waits of the account's passes: from each pass's end to the next one's begin. */
const waitsOf = (runners: ReadonlyArray<RunnerProcess>, label: string): ReadonlyArray<number> => {
  const events = runners
    .flatMap((runner) => runner.events)
    .filter((event) => event.account === label)
    .sort((a, b) => a.at - b.at)
  const waits: Array<number> = []
  let ended: number | undefined
  for (const event of events) {
    if (event.event === "ends") ended = event.at
    else if (ended !== undefined) {
      waits.push(event.at - ended)
      ended = undefined
    }
  }
  return waits
}

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("the backoff of refused credentials", () => {
  it.live("the count of refusals lives in the account's row: a fresh table service reads it on", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      const database = () => FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
      const refused = { funding: "refused", spot: "refused" }
      const first = yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        yield* accounts.add("refused", refusedCredentials)
        return [yield* accounts.record("refused", refused, true), yield* accounts.record("refused", refused, true)]
      }).pipe(Effect.provide(database()))
      expect(first).toEqual([1, 2])
      // Another service on the same row, as an entity made again or another runner has.
      const second = yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        const third = yield* accounts.record("refused", refused, true)
        // A pass that never reached the exchange (credentials it cannot open) keeps the count.
        const unread = yield* accounts.record("refused", refused, undefined)
        const cleared = yield* accounts.record("refused", { funding: undefined, spot: undefined }, false)
        return [third, unread, cleared]
      }).pipe(Effect.provide(database()))
      expect(second).toEqual([3, 3, 0])
    })
  )

  it.live(
    "a runner that takes the account over goes on doubling where the last one stopped",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database } = yield* seededFleet({
          accounts: 1,
          labelOf: () => "refused",
          credentialsOf: () => credentials,
          perAddress: false,
          added: false,
          exchangeOf: (_, now) => ({
            generate: { seed: 5, funding: 10, spot: 10, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        yield* Effect.flatMap(FleetAccounts, (accounts) => accounts.add("refused", refusedCredentials)).pipe(
          Effect.provide(database)
        )
        const ports = yield* freePorts(2)
        const run = (name: string, port: number | undefined) =>
          scopedRunner(name, { db, exchangeUrl: exchange.url, port, interval: "1s" })
        const first = yield* run("first", ports[0])
        // Three refused passes (waits of 1 s and 2 s between them), then the runner stops.
        const ends = () => first.events.filter((event) => event.event === "ends").length
        yield* until("three refused passes", 60_000, () => ends() >= 3)
        first.proc.kill("SIGTERM")
        yield* Effect.promise(() => first.exited)
        const second = yield* run("second", ports[1])
        // The fourth pass (due 4 s after the third) runs on the second runner; after it the
        // count is 4 and the wait 8 s. A count that began again would wait 1 s.
        const begins = () => second.events.filter((event) => event.event === "begins").length
        yield* until("two passes on the second runner", 60_000, () => begins() >= 2)
        const waits = waitsOf([first, second], "refused")
        console.info(`backoff test: waits ${waits.join(", ")} ms`)
        expect(waits.length).toBeGreaterThanOrEqual(4)
        expect(waits[3]).toBeGreaterThanOrEqual(7_000)
        expect(second.stderr()).toMatch(/level=WARN[^\n]*pass ends: funding failed/)
      }).pipe(Effect.scoped),
    120_000
  )
})
