/**
 * The spot pool's reorder buffer is bounded: with a consumer that stops pulling, the walks read
 * ahead at most `(concurrency + 1) × 17` pages (for the head and for each of at most
 * `concurrency` segments after it, a queue of 16 pages and one its walk waits to hand over), and
 * then wait.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { FakeExchange } from "../../src/testing/index.js"
import { spotBills } from "../support/billScenarios.js"
import { fakeStack } from "../support/fakeStack.js"

// 1,000 full pages: far more than any buffer holds.
const bills = spotBills({ seed: 37, count: 100_000, maxGroup: 3, maxGap: 4 })

describe("the spot pool's reorder buffer", () => {
  for (const concurrency of [2, 9]) {
    it.scoped(
      `holds at most (${concurrency} + 1) × 17 pages when the consumer stops (concurrency ${concurrency})`,
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Number(bills[bills.length - 1]?.cTime) + 1)
          const api = yield* BillsApi
          const pull = yield* Stream.toPull(api.streamSpotPages({ concurrency }))
          // Two pages: the first alone, the second starts the pool. Then a minute with no pulls.
          for (let i = 0; i < 2; i++) {
            const fiber = yield* Effect.fork(pull)
            yield* TestClock.adjust(Duration.seconds(2))
            yield* fiber.await
          }
          for (let s = 0; s < 60; s++) yield* TestClock.adjust(Duration.seconds(1))
          const requests = (yield* (yield* FakeExchange).stats).spotBills.requests
          // The first page, and what the pool fetched: the second page was emitted from its buffer.
          const bound = 1 + (concurrency + 1) * 17 + 1
          expect(requests).toBeLessThanOrEqual(bound)
          // And the walks did read ahead: each of the `concurrency` walks filled its buffer.
          expect(requests).toBeGreaterThanOrEqual(1 + concurrency * 16)
        }).pipe(
          Effect.provide(fakeStack({ exchange: { bills: { spot: bills }, latency: { millis: 150 } }, rateLimit: {} }))
        )
    )
  }
})
