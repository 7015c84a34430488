import { BillsApi } from "@account-bills/core"
import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { BigDecimal, Chunk, Effect, Fiber, Stream, TestClock } from "effect"
import { netDeposits } from "./test-your-code.js"

// A bill exactly as the exchange sends it.
const deposit = (billId: string, amount: string, balance: string, cTime: number) => ({
  billId,
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: amount,
  afterAmount: balance,
  fees: "0",
  cTime: String(cTime),
  fillSize: null,
  fillValue: null
})
const may = Date.UTC(2024, 4, 1)

// Both interface versions of the exchange (v2, the default, and v3) behave the same.
for (const apiVersion of ["v2", "v3"] as const) {
  describe(`my code, tested with the testing kit (${apiVersion})`, () => {
    // Your code over canned bills: the real client, an in-memory exchange, no network.
    it.effect("sums deposits exactly", () =>
      Effect.gen(function* () {
        const totals = yield* netDeposits(new Date(may), new Date(Date.UTC(2024, 5, 1)))
        expect(BigDecimal.format(totals.get("USDT") ?? BigDecimal.fromBigInt(0n))).toBe("100.6")
      }).pipe(
        Effect.provide(
          TestBillsApi.layer({
            apiVersion,
            funding: [deposit("1001", "100.1", "100.1", may + 1_000), deposit("1002", "0.5", "100.6", may + 2_000)]
          })
        )
      )
    )

    // A generated history: every bill of it, or only the first five.
    it.effect("reads a long history", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const all = yield* Stream.runCollect(api.streamSpotBills())
        expect(Chunk.size(all)).toBe(2_000)
        const first = yield* Stream.runCollect(Stream.take(api.streamSpotBills(), 5))
        expect(Chunk.size(first)).toBe(5)
      }).pipe(
        Effect.provide(
          TestBillsApi.layerStack({ apiVersion, exchange: { generate: { seed: 1, funding: 0, spot: 2_000 } } })
        )
      )
    )

    // The exchange's rate limit on both sides: time must pass, so move the test clock until done.
    it.effect("never trips the rate limit", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const fiber = yield* Effect.fork(Stream.runCollect(api.streamSpotBills()))
        while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust("100 millis")
        expect(Chunk.size(yield* Fiber.join(fiber))).toBe(2_000)
        const exchange = yield* FakeExchange
        expect((yield* exchange.stats).spotBills.rateLimited).toBe(0)
      }).pipe(
        Effect.provide(
          TestBillsApi.layerStack({
            apiVersion,
            exchange: { generate: { seed: 1, funding: 0, spot: 2_000 } },
            rateLimit: {}
          })
        )
      )
    )
  })
}
