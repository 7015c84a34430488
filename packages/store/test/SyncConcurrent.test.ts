/**
 * Several syncs of one account at once, each over its own connection to the same store, as
 * separate processes would be: every one ends, completing or failing with `SyncBusy`, and the
 * store holds exactly the exchange's bills. The process-level test of the same is
 * packages/node/test/SyncConcurrentCli.test.ts.
 */
import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"
import { runOnTestClock } from "./support/runOnTestClock.js"

const now = Date.UTC(2025, 4, 1)
const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")

for (const engine of engines) {
  describe(`syncs at once on ${engine.name}`, () => {
    for (const syncs of [2, 3]) {
      it.effect(
        `${syncs} syncs of one account at once, each on its own connection: all end, and the store holds every bill once`,
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(now)
            const target = yield* engine.fresh
            const results = yield* runOnTestClock(
              Effect.all(
                Array.from({ length: syncs }, () =>
                  Effect.either(Effect.provide(Sync.run({ account }), StoreLayer.layer(target)))
                ),
                { concurrency: "unbounded" }
              )
            )
            for (const result of results) {
              if (Either.isLeft(result)) expect(result.left._tag, result.left.message).toBe("SyncBusy")
            }
            expect(results.some(Either.isRight)).toBe(true)

            const fake = yield* FakeExchange
            const funding = yield* fake.bills("funding")
            const spot = yield* fake.bills("spot")
            const contract = yield* fake.contractBills
            const stored = yield* Effect.provide(
              Effect.gen(function* () {
                const store = yield* BillsStore
                return [
                  yield* store.count(account.id, "funding"),
                  yield* store.count(account.id, "spot"),
                  yield* store.count(account.id, "contract")
                ]
              }),
              StoreLayer.layer(target)
            )
            // Keys make a bill stored twice impossible; equal counts mean none is missing.
            expect(stored).toEqual([funding.length, spot.length, contract.length])
            const final = yield* runOnTestClock(Effect.provide(Sync.run({ account }), StoreLayer.layer(target)))
            expect(final.map((summary) => summary.added)).toEqual([0, 0, 0])
          }).pipe(
            Effect.provide(
              TestBillsApi.layerStack({
                exchange: {
                  rateLimit: false,
                  generate: {
                    seed: 1_400 + syncs,
                    funding: 700,
                    spot: 1_300,
                    sameMillisecondGroup: { every: 40, size: 5 }
                  }
                }
              })
            )
          ),
        60_000
      )
    }
  })
}
