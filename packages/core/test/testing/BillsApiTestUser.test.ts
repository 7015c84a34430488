import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { TestBillsApi, FakeExchange } from "../../src/testing/index.js"
import { runOnTestClock } from "../support/fakeStack.js"

// The testing kit the way a user meets it: `it.effect`, whose clock is a TestClock that stands
// still until the test moves it, and no clock code in the test unless it says so.
const generate = { seed: 21, funding: 1_234, spot: 1_345, sameMillisecondGroup: { every: 9, size: 3 } }

const may = Date.UTC(2024, 4, 1)
const canned = (billId: string, deltaAmount: string, afterAmount: string, cTime: number) => ({
  billId,
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount,
  afterAmount,
  fees: "0",
  cTime: String(cTime),
  fillSize: null,
  fillValue: null
})

/** Real time an effect took, in ms: the kit's guards wait on the live clock. */
const realMillis = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const started = performance.now()
    const exit = yield* Effect.exit(effect)
    return { exit, millis: performance.now() - started }
  })

const defectText = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "the effect succeeded"

for (const apiVersion of ["v2", "v3"] as const) {
  describe(`TestBillsApi as users meet it, under it.effect's TestClock (${apiVersion})`, () => {
    it.effect("layerStack: Stream.runCollect of more than 1,000 bills of each account, the clock untouched", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const funding = yield* Stream.runCollect(api.streamFundingBills())
        const spot = yield* Stream.runCollect(api.streamSpotBills())
        expect(Chunk.size(funding)).toBe(1_234)
        expect(Chunk.size(spot)).toBe(1_345)
        const stats = yield* exchange.stats
        expect(stats.fundingBills.rateLimited + stats.spotBills.rateLimited).toBe(0)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate } })))
    )

    it.effect("layerStack: Stream.take(5), the clock untouched", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        expect(Chunk.size(yield* Stream.runCollect(Stream.take(api.streamFundingBills(), 5)))).toBe(5)
        expect(Chunk.size(yield* Stream.runCollect(Stream.take(api.streamSpotBills(), 5)))).toBe(5)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate } })))
    )

    it.effect("layerStack with a rate limit: the client's limiter and the fake's window are one setting", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        expect((yield* exchange.behaviour).rateLimit).toEqual({ limit: 4, windowMillis: 500 })
        // Moving the clock along, as README shows: every bill, and never a 429.
        const exit = yield* runOnTestClock(Stream.runCollect(api.streamSpotBills()))
        expect(Exit.isSuccess(exit) && Chunk.size(exit.value)).toBe(1_345)
        expect((yield* exchange.stats).spotBills.rateLimited).toBe(0)
      }).pipe(
        Effect.provide(
          TestBillsApi.layerStack({
            apiVersion,
            exchange: { generate },
            rateLimit: { limit: 4, window: Duration.millis(500) }
          })
        )
      )
    )

    it.effect("the fake's own rateLimit, given alone, limits the client the same way", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const exit = yield* runOnTestClock(Stream.runCollect(api.streamFundingBills()))
        expect(Exit.isSuccess(exit) && Chunk.size(exit.value)).toBe(1_234)
        expect((yield* exchange.stats).fundingBills.rateLimited).toBe(0)
      }).pipe(
        Effect.provide(
          TestBillsApi.layerStack({ apiVersion, exchange: { generate, rateLimit: { limit: 2, windowMillis: 300 } } })
        )
      )
    )

    it.effect(
      "with a rate limit and a clock nobody moves, a walk of more than 10 pages fails fast, saying what to do",
      () =>
        Effect.gen(function* () {
          const api = yield* BillsApi
          // A few bills take one request, which the limit lets through at once.
          expect(Chunk.size(yield* Stream.runCollect(Stream.take(api.streamFundingBills(), 5)))).toBe(5)
          const { exit, millis } = yield* realMillis(Stream.runCollect(api.streamFundingBills()))
          const text = defectText(exit)
          expect(text).toContain("TestBillsApi: a request has waited 2 s of real time on a clock that does not move")
          expect(text).toContain("TestClock.adjust")
          expect(text).toContain("rateLimit: false")
          expect(millis).toBeLessThan(4_000)
        }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate }, rateLimit: {} })))
    )

    it.effect("with a latency and a clock nobody moves, even Stream.take(5) fails fast, saying what to do", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const { exit, millis } = yield* realMillis(Stream.runCollect(Stream.take(api.streamSpotBills(), 5)))
        const text = defectText(exit)
        expect(text).toContain("It waits for the fake exchange's latency")
        expect(millis).toBeLessThan(4_000)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate, latency: { millis: 150 } } })))
    )

    it.effect("a test that never sets the clock gets every canned bill: the clock starts after them", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        expect(yield* Effect.clockWith((clock) => clock.currentTimeMillis)).toBe(may + 3_001)
        const bills = yield* Stream.runCollect(api.streamFundingBills())
        expect(Chunk.toReadonlyArray(bills).map((bill) => bill.billId)).toEqual(["1003", "1002", "1001"])
      }).pipe(
        Effect.provide(
          TestBillsApi.layer({
            apiVersion,
            funding: [
              canned("1001", "100", "100", may + 1_000),
              canned("1002", "-30", "70", may + 2_000),
              canned("1003", "5", "75", may + 3_000)
            ]
          })
        )
      )
    )

    it.effect("a test that never sets the clock gets every generated bill too", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const wire = yield* exchange.bills("spot")
        expect(yield* Effect.clockWith((clock) => clock.currentTimeMillis)).toBeGreaterThan(
          Number(wire[wire.length - 1]?.cTime)
        )
        expect(Chunk.size(yield* Stream.runCollect(api.streamSpotBills()))).toBe(1_345)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate } })))
    )

    it.effect("a clock set before every bill fails the stream with a message, rather than give no bill", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.UTC(2024, 0, 1))
        const api = yield* BillsApi
        const text = defectText(yield* Effect.exit(Stream.runCollect(api.streamSpotBills())))
        expect(text).toContain(
          "TestBillsApi: the clock reads 2024-01-01T00:00:00.000Z, before the first spot bill of the fake exchange"
        )
        expect(text).toContain("yield* TestClock.setTime(")
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate } })))
    )

    it.effect("a window the test asks for that ends before its bills is its own: no bill, no failure", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const bills = yield* Stream.runCollect(api.streamFundingBills({ from: new Date(0), to: new Date(1_000) }))
        expect(Chunk.size(bills)).toBe(0)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate } })))
    )
  })
}
