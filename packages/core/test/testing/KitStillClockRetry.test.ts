/**
 * The kit's waits outside the limiter, with a clock nobody moves: the retry loop's pause after a
 * transient failure (an injected 429, 5xx or reset, or a 429 from the fake's own window set
 * tighter than the client's limiter), and the measurement of the exchange's clock over a
 * latency; and, inside the limiter's guard, a Hang fault's wait for the request timeout, whose
 * message names it. Each fails within a few seconds of real time with a message saying what to do,
 * instead of hanging until vitest's timeout. Written as a user writes it: the public kit,
 * `it.effect`, one `TestClock.setTime`; v2 and v3, whose 429s, 5xx bodies and time endpoint differ.
 */
import { BillsApi } from "@account-bills/core"
import { FakeExchange, FakeFault, type FakeExchangeOptions, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { failsWithinMillis, stillClockRun, testTimeout } from "../support/stillClockRun.js"

const walk = Effect.flatMap(BillsApi, (api) => Stream.runCollect(api.streamSpotBills()))

// Enough bills for several pages, so that the fault's request is followed by more.
const generate = { seed: 3, spot: 500, funding: 0 }

const faults: ReadonlyArray<readonly [string, FakeFault]> = [
  ["an injected 429", FakeFault.Status({ status: 429 })],
  ["an injected 503", FakeFault.Status({ status: 503 })],
  ["a reset connection", FakeFault.Reset()]
]

for (const apiVersion of ["v2", "v3"] as const) {
  describe.concurrent(`the kit's waits outside the limiter, with a clock nobody moves (${apiVersion})`, () => {
    for (const [name, fault] of faults) {
      it.effect(
        `the retry's pause after ${name} fails within seconds, saying to move the clock`,
        () =>
          Effect.gen(function* () {
            const { failed, said, millis } = yield* stillClockRun(walk)
            expect(failed).toBe(true)
            expect(said).toContain("TestBillsApi: a call has waited 2 s of real time on a clock that does not move")
            expect(said).toContain("before its retry 1, after a transient failure")
            expect(said).toContain("TestClock.adjust")
            expect(said).toContain("maxAttempts: 1")
            expect(millis).toBeLessThan(failsWithinMillis)
            // The fault was met, and the retry never sent.
            expect((yield* (yield* FakeExchange).stats).spotBills.requests).toBe(1)
          }).pipe(
            Effect.provide(
              TestBillsApi.layerStack({ apiVersion, exchange: { generate, faults: { scripted: [{ nth: 1, fault }] } } })
            )
          ),
        testTimeout
      )
    }

    it.effect(
      "the retry's pause after a 429 of the fake's own window, set tighter than the client's limiter, fails within seconds",
      () =>
        Effect.gen(function* () {
          const exchange = yield* FakeExchange
          yield* exchange.configure({ rateLimit: { limit: 1, windowMillis: 1_000 } })
          const { failed, said, millis } = yield* stillClockRun(walk)
          expect(failed).toBe(true)
          expect(said).toContain("before its retry 1, after a transient failure")
          expect(said).toContain("TestClock.adjust")
          expect(millis).toBeLessThan(failsWithinMillis)
          // The spot walk sends more than one request at a time: the window refuses all but one.
          expect((yield* exchange.stats).spotBills.rateLimited).toBeGreaterThanOrEqual(1)
        }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate } }))),
      testTimeout
    )

    it.effect(
      "a Hang fault's wait for the request timeout fails within seconds, saying what it waits for",
      () =>
        Effect.gen(function* () {
          const { failed, said, millis } = yield* stillClockRun(walk)
          expect(failed).toBe(true)
          expect(said).toContain("TestBillsApi: a request has waited 2 s of real time on a clock that does not move")
          expect(said).toContain("for the client's requestTimeout to end an answer that never comes (a Hang fault)")
          expect(millis).toBeLessThan(failsWithinMillis)
        }).pipe(
          Effect.provide(
            TestBillsApi.layerStack({
              apiVersion,
              exchange: { generate, faults: { scripted: [{ nth: 1, fault: FakeFault.Hang() }] } }
            })
          )
        ),
      testTimeout
    )

    it.effect(
      "measuring the exchange's clock over a latency fails within seconds, saying to move the clock",
      () =>
        Effect.gen(function* () {
          const { failed, said, millis } = yield* stillClockRun(Effect.flatMap(BillsApi, (api) => api.syncClock))
          expect(failed).toBe(true)
          expect(said).toContain(
            "TestBillsApi: the measurement of the exchange's clock has waited 2 s of real time on a clock that does not move"
          )
          expect(said).toContain("TestClock.adjust")
          expect(millis).toBeLessThan(failsWithinMillis)
        }).pipe(
          Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: { generate, latency: { millis: 80 } } }))
        ),
      testTimeout
    )
  })
}

describe.concurrent("the kit's waits outside the limiter, with a clock the test moves", () => {
  const exchange: FakeExchangeOptions = {
    generate,
    faults: { scripted: [{ nth: 1, fault: FakeFault.Status({ status: 503 }) }] },
    latency: { millis: 80 }
  }
  it.effect("a retried walk and a clock measurement over a latency end, the guard never firing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 6, 1))
      const api = yield* BillsApi
      const fiber = yield* Effect.fork(Effect.zip(Stream.runCollect(api.streamSpotBills()), api.syncClock))
      while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust("50 millis")
      const [bills] = yield* Fiber.join(fiber)
      expect(Chunk.size(bills)).toBe(500)
      const stats = yield* (yield* FakeExchange).stats
      expect(stats.spotBills.faulted).toBe(1)
      expect(stats.serverTimeRequests).toBe(1)
    }).pipe(Effect.provide(TestBillsApi.layerStack({ exchange })))
  )
})
