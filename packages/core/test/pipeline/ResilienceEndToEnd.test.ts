import { describe, expect, it } from "@effect/vitest"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi, BillsConfig, BillsRateLimiter, Signer } from "../../src/index.js"
import { defaultFaultMix, FakeExchange, FakeFault } from "../../src/testing/index.js"
import { apiVersions, fakeStack, runOnTestClock, timed } from "../support/fakeStack.js"
import { collect, expectExactly } from "../support/streamCheck.js"
import { credentials } from "../support/stubHttp.js"

/** After the generated history (2025-01-01 + 90 days), so a walk pinned at "now" sees all of it. */
const afterHistory = TestClock.setTime(Date.UTC(2025, 5, 1))

/** 10% faults: the default mix (500, 502, 503, 429, reset, HTML, truncated) plus hangs. */
const tenPercentFaults = (seed: number) => ({
  random: { rate: 0.1, seed, mix: [...defaultFaultMix, { fault: FakeFault.Hang(), weight: 1 }] }
})

const walkBoth = Effect.gen(function* () {
  const api = yield* BillsApi
  return yield* Effect.all([collect(api.streamFundingBills()), collect(api.streamSpotBills())], {
    concurrency: "unbounded"
  })
})

for (const apiVersion of apiVersions) {
  /** The stack of these tests, in this version. */
  const stack = (options: Parameters<typeof fakeStack>[0] = {}) => fakeStack(options, apiVersion)

  describe(`end to end, with faults (${apiVersion})`, () => {
    it.effect(
      "streams of 5,000 bills of each account complete exactly under 10% seeded random faults",
      () =>
        Effect.gen(function* () {
          yield* afterHistory
          const exchange = yield* FakeExchange
          const exit = yield* runOnTestClock(walkBoth, Duration.seconds(1))
          const [funding, spot] = yield* exit
          expect(funding.exit._tag).toBe("Success")
          expect(spot.exit._tag).toBe("Success")
          expectExactly(funding.bills, yield* exchange.bills("funding"))
          expectExactly(spot.bills, yield* exchange.bills("spot"))
          const stats = yield* exchange.stats
          expect(stats.fundingBills.faulted + stats.spotBills.faulted).toBeGreaterThan(5)
          expect(stats.fundingBills.rateLimited + stats.spotBills.rateLimited).toBe(0)
        }).pipe(
          Effect.provide(
            stack({ exchange: { generate: { seed: 21, funding: 5000, spot: 5000 }, faults: tenPercentFaults(4) } })
          )
        ),
      60_000
    )

    it.effect("300 calls from 10 fibers under 10% faults give exactly the fault-free answers", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const calls = Array.from({ length: 300 }, (_, i) =>
          i % 2 === 0
            ? Effect.map(api.fundingBills({ pageIndex: 1 + (i % 20), pageSize: 25 }), (page) =>
                page.items.map((b) => b.raw)
              )
            : Effect.map(api.spotBills({ limit: 10 + (i % 90) }), (bills) => bills.map((b) => b.raw))
        )
        const run = runOnTestClock(Effect.all(calls, { concurrency: 10 }), Duration.seconds(1))
        const faulty = yield* Effect.flatten(run)
        const faulted = (yield* exchange.stats).spotBills.faulted
        yield* exchange.clearFaults
        const clean = yield* Effect.flatten(run)
        expect(faulted).toBeGreaterThan(5)
        expect(faulty).toEqual(clean)
      }).pipe(
        Effect.provide(
          stack({ exchange: { generate: { seed: 8, funding: 600, spot: 600 }, faults: tenPercentFaults(12) } })
        )
      )
    )

    it.effect("a permanent fault fails the stream with the typed error after bounded attempts and time", () =>
      Effect.gen(function* () {
        yield* afterHistory
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        yield* exchange.setPermanentFault(FakeFault.Reset())
        const exit = yield* runOnTestClock(timed(collect(api.streamSpotBills())))
        const { millis, value } = yield* exit
        expect(value.bills).toEqual([])
        expect(Exit.isFailure(value.exit) && Exit.causeOption(value.exit)).toBeTruthy()
        const error = yield* Effect.flip(value.exit)
        expect(error).toMatchObject({ _tag: "BillsTransportError", reason: "Transport", operation: "spotBills" })
        expect((yield* exchange.stats).spotBills.requests).toBe(5)
        // Four backoffs of at most 250, 500, 1000, 2000 ms.
        expect(millis).toBeLessThanOrEqual(3750)
      }).pipe(Effect.provide(stack({ exchange: { generate: { seed: 1, funding: 10, spot: 10 } } })))
    )
  })

  describe(`end to end, with the exchange's clock off by a minute (${apiVersion})`, () => {
    for (const offset of [60_000, -60_000]) {
      it.effect(`full streams complete with the exchange ${offset > 0 ? "ahead" : "behind"}`, () =>
        Effect.gen(function* () {
          yield* afterHistory
          const exchange = yield* FakeExchange
          const [funding, spot] = yield* Effect.flatten(runOnTestClock(walkBoth, Duration.seconds(1)))
          expectExactly(funding.bills, yield* exchange.bills("funding"))
          expectExactly(spot.bills, yield* exchange.bills("spot"))
          const stats = yield* exchange.stats
          expect(stats.serverTimeRequests).toBeLessThanOrEqual(2)
          expect(stats.fundingBills.rejected + stats.spotBills.rejected).toBeLessThanOrEqual(2)
        }).pipe(
          Effect.provide(
            stack({
              exchange: { generate: { seed: 30, funding: 1200, spot: 1200 }, clockOffsetMillis: offset }
            })
          )
        )
      )
    }
  })

  describe(`interruption (${apiVersion})`, () => {
    it.effect("interrupting a call during a hang leaves no fiber behind and no further work at the exchange", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        yield* exchange.failNext(FakeFault.Hang())
        const call = yield* Effect.fork(api.spotBills())
        yield* TestClock.adjust(Duration.seconds(3))
        const [hanging] = yield* exchange.requests
        expect(hanging?.outcome).toEqual({ _tag: "Faulted", fault: FakeFault.Hang() })
        // The attempt runs in child fibers (the timeout's race): they exist while it hangs.
        const children = yield* Fiber.children(call)
        expect(children.length).toBeGreaterThan(0)
        yield* Fiber.interrupt(call)
        expect(yield* Fiber.status(call)).toMatchObject({ _tag: "Done" })
        for (const child of children) expect(yield* Fiber.status(child)).toMatchObject({ _tag: "Done" })
        // Past the timeout and every backoff: no retry is ever sent.
        yield* TestClock.adjust(Duration.minutes(5))
        expect((yield* exchange.stats).spotBills.requests).toBe(1)
      }).pipe(Effect.provide(stack()))
    )

    it.effect("interrupting a stream mid-walk stops its requests", () =>
      Effect.gen(function* () {
        yield* afterHistory
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const walk = yield* Effect.fork(Stream.runDrain(api.streamFundingBills()))
        yield* TestClock.adjust(Duration.millis(1500))
        yield* Fiber.interrupt(walk)
        const sent = (yield* exchange.stats).fundingBills.requests
        expect(sent).toBeGreaterThan(0)
        yield* TestClock.adjust(Duration.minutes(5))
        expect((yield* exchange.stats).fundingBills.requests).toBe(sent)
      }).pipe(Effect.provide(stack({ exchange: { generate: { seed: 3, funding: 5000, spot: 0 } } })))
    )
  })
}

describe("interruption, on the real clock", () => {
  it.live("on the real clock, an interrupted hanging call leaves no timer behind", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      const layer = BillsApi.layer.pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, FakeExchange.httpClient(exchange))),
        Layer.provide(Signer.layer(credentials)),
        Layer.provide(BillsRateLimiter.layer()),
        Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake.exchange.test" })))
      )
      const api = yield* Effect.provide(BillsApi, layer)
      const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length
      const before = timers()
      yield* exchange.failNext(FakeFault.Hang())
      const call = yield* Effect.fork(api.spotBills())
      // Wait (on events, not time) until the request hangs at the exchange.
      while ((yield* exchange.requests).length === 0) yield* Effect.promise(() => new Promise(setImmediate))
      // The request timeout's timer (at least) is armed while the request hangs.
      expect(timers()).toBeGreaterThan(before)
      yield* Fiber.interrupt(call)
      expect(timers()).toBe(before)
      expect((yield* exchange.stats).spotBills.requests).toBe(1)
    })
  )
})
