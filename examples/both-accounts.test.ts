import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { countBoth } from "./both-accounts.js"

// The real client, with its real rate limiter, over an in-memory exchange.
const stack = TestBillsApi.layerStack({
  exchange: { generate: { seed: 11, funding: 3_000, spot: 3_000, endMillis: Date.UTC(2025, 2, 1) } },
  rateLimit: {}
})

describe("example: funding and spot at once", () => {
  it.effect("each under its own limit: side by side, no 429", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 3, 1))
      const fiber = yield* Effect.fork(countBoth)
      let elapsed = 0
      while ((yield* Fiber.poll(fiber))._tag === "None") {
        yield* TestClock.adjust("100 millis")
        elapsed += 100
      }
      const counts = yield* Fiber.join(fiber)
      expect(counts).toEqual({ funding: 3_000, spot: 3_000 })
      const stats = yield* (yield* FakeExchange).stats
      expect(stats.fundingBills.rateLimited + stats.spotBills.rateLimited).toBe(0)
      // About 30 funding and 31+ spot requests: concurrently that is ~3 s of clock, not ~6.
      expect(elapsed).toBeLessThan(5_000)
    }).pipe(Effect.provide(stack))
  )
})
