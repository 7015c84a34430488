/**
 * A kind whose walk takes many passes does not hold back the other two: a new account's futures
 * history, walked a page a pass (the page bound), goes on pass after pass, and its funding and
 * spot bills are still read every interval meanwhile, not only once the futures walk is done.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { AddressBudget, FleetCipher, FleetRunner, FleetStatus } from "../src/index.js"
import { oneShard } from "./support/inProcessRunner.js"
import { freePorts } from "./support/ports.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const credentials = { apiKey: "apart-key", secret: "apart-secret", passphrase: "apart-pass" }

describe.skipIf(postgresUrl === undefined)("the kinds of a pass", () => {
  it.live(
    "funding is read every interval while a long futures walk goes on a page a pass",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database } = yield* seededFleet({
          accounts: 1,
          labelOf: () => "apart",
          credentialsOf: () => credentials,
          perAddress: false,
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
        const [port = 0] = yield* freePorts(1)
        yield* Layer.launch(
          FleetRunner.layer({
            db,
            port,
            interval: Duration.seconds(1),
            pagesPerPass: 1,
            sharding: oneShard,
            config: { baseUrl: exchange.url }
          }).pipe(Layer.provide(AddressBudget.layerNone), Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
        ).pipe(Effect.orDie, Effect.forkScoped)
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
        // Funding's own pass count while the futures walk went on: one in the first pass, then one
        // an interval (1 s) apart; a pass that walked the futures kind alone until it was done
        // would read funding once.
        const during = funding.filter((request) => request.at > first + 1_000 && request.at < last)
        console.info(
          `kinds apart: the futures walk took ${contract.length} requests over ${last - first} ms; funding was read ${during.length} times in it after its first second`
        )
        expect(last - first).toBeGreaterThan(3_000)
        expect(during.length).toBeGreaterThanOrEqual(Math.floor((last - first) / 1_000) - 2)
        expect(requests.filter((request) => request.status === 429)).toEqual([])
      }).pipe(Effect.scoped),
    120_000
  )
})
