import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { streamAll } from "./stream-all.js"

// The real client, with its real rate limiter, over an in-memory exchange.
const stack = TestBillsApi.layerStack({
  exchange: {
    generate: {
      seed: 5,
      funding: 1_500,
      spot: 2_500,
      endMillis: Date.UTC(2025, 0, 1, 0, 0, 2),
      sameMillisecondGroup: { every: 7, size: 4 }
    }
  },
  rateLimit: {}
})

describe("example: stream all bills of both accounts", () => {
  it.effect("collects every bill once, exactly as the exchange sent it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 0, 2))
      const fiber = yield* Effect.fork(streamAll())
      // The real rate limiter waits on the clock; move it along until the walk is done.
      while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust("100 millis")
      const { funding, spot } = yield* Fiber.join(fiber)

      const exchange = yield* FakeExchange
      const fundingWire = yield* exchange.bills("funding")
      const spotWire = yield* exchange.bills("spot")
      // As many as the exchange holds, and each one's record exactly as it was sent.
      expect(funding.length).toBe(fundingWire.length)
      expect(spot.length).toBe(spotWire.length)
      expect(new Map(funding.map((bill) => [bill.billId, bill.raw]))).toEqual(
        new Map(fundingWire.map((bill) => [bill.billId, bill]))
      )
      expect(new Map(spot.map((bill) => [bill.billId, bill.raw]))).toEqual(
        new Map(spotWire.map((bill) => [bill.billId, bill]))
      )
      const stats = yield* exchange.stats
      expect(stats.fundingBills.rateLimited + stats.spotBills.rateLimited).toBe(0)
    }).pipe(Effect.provide(stack))
  )
})
