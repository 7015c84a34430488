/**
 * A kind whose walk takes many passes does not hold back the other two: a new account's futures
 * history, 150 ms from the exchange, takes many intervals to walk, and its funding bills are still
 * read about every interval meanwhile. Two rules make it so, and the test fails without either:
 * the pass that goes on with the futures walk reads all three kinds again once they are due (else
 * funding waits for the whole walk), and a pass stops its walks about an interval after it begins
 * (else funding waits for each pass's twenty futures pages).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { FleetStatus } from "../src/index.js"
import { launchedRunner } from "./support/inProcessRunner.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"
import { until } from "./support/until.js"

const credentials = { apiKey: "apart-key", secret: "apart-secret", passphrase: "apart-pass" }

describe.skipIf(postgresUrl === undefined)("the kinds of a pass", () => {
  it.live(
    "funding is read about every interval while a long futures walk goes on",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database } = yield* seededFleet({
          accounts: 1,
          labelOf: () => "apart",
          credentialsOf: () => credentials,
          perAddress: false,
          latency: { millis: 150 },
          exchangeOf: (_, now) => ({
            generate: {
              seed: 11,
              funding: 30,
              spot: 30,
              contract: 6_000,
              startMillis: now - 10 * 86_400_000,
              endMillis: now - 60_000
            }
          })
        })
        yield* launchedRunner({ db, exchangeUrl: exchange.url, interval: Duration.seconds(1) })
        const fake = exchange.exchanges.get(credentials.apiKey)
        if (fake === undefined) return yield* Effect.dieMessage("no exchange for the account")
        const contractBills = (yield* fake.contractBills).length
        const stored = Effect.map(FleetStatus.all, (rows) => rows[0]?.contract.bills ?? 0).pipe(
          Effect.provide(database),
          Effect.orDie
        )
        yield* until("every contract bill stored", 90_000, () =>
          Effect.runPromise(stored).then((n) => n === contractBills)
        )

        const requests = exchange.requests()
        const contract = requests.filter((request) => request.operation === "contractBills")
        const funding = requests.filter((request) => request.operation === "fundingBills")
        const first = contract[0]?.at ?? 0
        const last = contract.at(-1)?.at ?? 0
        // Funding's reads while the futures walk went on, after the first pass's: one a pass, and a
        // pass lasts an interval (1 s) and a page; a pass of twenty futures pages takes 7 s here.
        const during = funding.filter((request) => request.at > first + 1_000 && request.at < last)
        const gaps = during.slice(1).map((request, i) => request.at - (during[i]?.at ?? 0))
        console.info(
          `kinds apart: the futures walk took ${contract.length} requests over ${last - first} ms; funding was read ${during.length} times in it after its first second, the longest gap ${Math.max(0, ...gaps)} ms`
        )
        expect(last - first).toBeGreaterThan(8_000)
        expect(during.length).toBeGreaterThanOrEqual(Math.floor((last - first) / 2_000))
        expect(requests.filter((request) => request.status === 429)).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )
})
