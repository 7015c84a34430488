import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { BillsApi, BillsMetrics } from "../../src/index.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { apiVersions, fakeStack, runOnTestClock } from "../support/fakeStack.js"

/** The spot counters now: attempts, retries, rate-limit refusals. */
const counters = Effect.all({
  requests: Metric.value(BillsMetrics.forOperation(BillsMetrics.requests, "spotBills")),
  retries: Metric.value(BillsMetrics.forOperation(BillsMetrics.retries, "spotBills")),
  rateLimited: Metric.value(BillsMetrics.forOperation(BillsMetrics.rateLimited, "spotBills"))
}).pipe(Effect.map(({ rateLimited, requests, retries }) => [requests.count, retries.count, rateLimited.count]))

/** How much each counter grew while `effect` ran. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* counters
    yield* Effect.exit(effect)
    const after = yield* counters
    const [requests = 0, retries = 0, rateLimited = 0] = after.map((n, i) => Number(n) - Number(before[i] ?? 0))
    return { requests, retries, rateLimited }
  })

for (const apiVersion of apiVersions) {
  describe(`the attempt counts itself (${apiVersion})`, () => {
    it.effect(
      "two transient failures then an answer: three attempts, two of them retries, one refused by the limit",
      () =>
        Effect.gen(function* () {
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          yield* exchange.injectFaults([
            { nth: 1, fault: FakeFault.Status({ status: 503 }) },
            { nth: 2, fault: FakeFault.Status({ status: 429 }) }
          ])
          const grown = yield* counted(Effect.flatten(runOnTestClock(api.spotBills())))
          expect(grown).toEqual({ requests: 3, retries: 2, rateLimited: 1 })
        }).pipe(Effect.provide(fakeStack({ exchange: { generate: { seed: 1, spot: 5 } } }, apiVersion)))
    )

    it.effect("a rejected clock: the attempt after the measurement is a retry too", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const grown = yield* counted(api.spotBills())
        expect(grown).toEqual({ requests: 2, retries: 1, rateLimited: 0 })
        // Once the offset is known, a call is one attempt and no retry.
        expect(yield* counted(api.spotBills())).toEqual({ requests: 1, retries: 0, rateLimited: 0 })
      }).pipe(
        Effect.provide(
          fakeStack({ exchange: { generate: { seed: 1, spot: 5 }, clockOffsetMillis: 60_000 } }, apiVersion)
        )
      )
    )
  })
}
