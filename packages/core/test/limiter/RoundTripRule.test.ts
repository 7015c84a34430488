import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import {
  BillsApi,
  BillsRateLimiter,
  type BillsRateLimiterShape,
  type PermitOutcome,
  type RateLimitOptions
} from "../../src/index.js"
import { FakeExchange } from "../../src/testing/index.js"
import { busiestWindow, runOnTestClock, timed } from "../support/fakeStack.js"
import { routeStack } from "../support/routeStack.js"

describe("BillsRateLimiter without stamps (the round trips place each arrival)", () => {
  // Each half of the round trip takes up to jitter / 2 more, drawn from a fixed seed per case.
  // The answer rule needs 29 slots of 1,025 ms + a round trip (+ the last round trip): 29.7 s at
  // 0 ms, 34.2 s at 150 ms, 38.6 s at 300 ms, and more with jitter.
  const cases = [
    { roundTrip: 0, jitter: 0, seed: 1, maxMillis: 29_725 },
    { roundTrip: 150, jitter: 0, seed: 1, maxMillis: 30_500 },
    { roundTrip: 150, jitter: 100, seed: 2, maxMillis: 33_000 },
    { roundTrip: 150, jitter: 300, seed: 3, maxMillis: 37_000 },
    { roundTrip: 300, jitter: 0, seed: 1, maxMillis: 30_700 },
    { roundTrip: 300, jitter: 100, seed: 2, maxMillis: 33_000 }
  ]
  for (const { jitter, maxMillis, roundTrip, seed } of cases) {
    it.effect(
      `300 requests from 10 fibers, ${roundTrip} ms round trip, jitter ${jitter} ms: no 429, at most 10 arrivals in any second`,
      () =>
        Effect.gen(function* () {
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          const exit = yield* runOnTestClock(
            timed(
              Effect.forEach(
                Array.from({ length: 10 }),
                () => Effect.forEach(Array.from({ length: 30 }), () => api.spotBills({ limit: 1 })),
                { concurrency: "unbounded", discard: true }
              )
            ),
            Duration.millis(50)
          )
          if (Exit.isFailure(exit)) return expect.fail(String(exit.cause))
          const stats = yield* exchange.stats
          expect(stats.spotBills).toMatchObject({ requests: 300, succeeded: 300, rateLimited: 0 })
          const arrivals = (yield* exchange.requests).map((r) => r.arrivalMillis)
          expect(busiestWindow(arrivals, 1000)).toBe(10)
          expect(exit.value.millis).toBeLessThanOrEqual(maxMillis)
          console.log(
            `no stamps, ${roundTrip} ms, jitter ${jitter} ms: 300 requests took ${exit.value.millis} ms of test clock`
          )
        }).pipe(
          Effect.provide(
            routeStack({
              stamps: "stamp-free",
              exchange: {
                generate: { seed: 11, spot: 50, funding: 0 },
                latency: { millis: roundTrip, jitterMillis: jitter, seed }
              }
            })
          )
        ),
      60_000
    )
  }
})

describe("BillsRateLimiter without stamps: when the round trips start to place arrivals", () => {
  // A request `up` ms on the way there (where the server counts it), 75 ms back; answers carry no stamp.
  const makeServer = () => {
    const arrivals: Array<number> = []
    const request = (up: number) =>
      Effect.gen(function* () {
        yield* Effect.sleep(Duration.millis(up))
        arrivals.push(yield* Effect.clockWith((clock) => clock.currentTimeMillis))
        yield* Effect.sleep(Duration.millis(75))
      })
    return { arrivals, request }
  }
  const observe = (): PermitOutcome => ({ serverTime: undefined, rateLimited: false, answered: true })

  it.effect("a burst of first requests that all paid a connection set-up does not pass for a steady route", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make()
      const server = makeServer()
      // Ten callers at once, each opening a connection (300 ms more on the way there), then
      // reusing it. Were ten round trips of cold requests trusted, which vary not at all, the
      // first warm request would go a window after the first cold one's grant: 300 ms early.
      const caller = Effect.forEach(
        [375, 75, 75, 75],
        (up) => limiter.withPermit("spotBills", observe)(server.request(up)),
        {
          discard: true
        }
      )
      const fiber = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 10 }, () => caller),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust(Duration.seconds(10))
      yield* Fiber.join(fiber)
      expect(server.arrivals).toHaveLength(40)
      expect(busiestWindow(server.arrivals, 1000)).toBe(10)
    })
  )

  it.effect("permits waiting for answers are placed again by the round trips as soon as these are trusted", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make()
      const server = makeServer()
      const take = () => limiter.withPermit("spotBills", observe)(server.request(75))
      const fiber = yield* Effect.fork(
        Effect.zipRight(
          take(),
          Effect.forEach(Array.from({ length: 11 }), take, { concurrency: "unbounded", discard: true })
        )
      )
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.join(fiber)
      // By its answer (150 ms) the first slot would reopen at 150 + 1,025; trusted at 300 ms, the
      // steady round trips place it at its grant: the eleventh request goes at 1,025 and reaches
      // the server exactly 1,025 ms after the first.
      expect((server.arrivals[10] as number) - (server.arrivals[0] as number)).toBe(1025)
      expect(busiestWindow(server.arrivals, 1000)).toBe(10)
    })
  )

  // Twelve steady answers (the round trips trusted, varying not at all), then a request of 400 ms
  // placed by its end, not its grant: the next permit a window after that end.
  const lastPlacedByItsEnd = (
    options: RateLimitOptions,
    last: (limiter: BillsRateLimiterShape) => Effect.Effect<void>
  ) =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make({ limit: 1, window: Duration.millis(1000), margin: 0, ...options })
      const server = makeServer()
      for (let i = 0; i < 12; i++) {
        const fiber = yield* Effect.fork(limiter.withPermit("spotBills", observe)(server.request(75)))
        yield* TestClock.adjust(Duration.millis(1150))
        yield* Fiber.join(fiber)
      }
      const lost = yield* Effect.fork(last(limiter))
      yield* Effect.yieldNow()
      const next = yield* Effect.fork(timed(limiter.take("spotBills")))
      yield* TestClock.adjust(Duration.seconds(3))
      yield* Fiber.join(lost)
      return (yield* Fiber.join(next)).millis
    })

  it.effect("a request run without `observe` says nothing of its arrival: its slot waits for its end", () =>
    Effect.gen(function* () {
      expect(
        yield* lastPlacedByItsEnd({}, (limiter) => limiter.withPermit("spotBills")(Effect.sleep(Duration.millis(400))))
      ).toBe(1400)
    })
  )

  it.effect('arrival: "answer" ignores what answers tell: each slot waits for its answer', () =>
    Effect.gen(function* () {
      expect(
        yield* lastPlacedByItsEnd({ arrival: "answer" }, (limiter) =>
          limiter.withPermit("spotBills", observe)(Effect.sleep(Duration.millis(400)))
        )
      ).toBe(1400)
    })
  )

  it.effect(
    "a request that got no answer (a timeout, a broken connection) is no round trip: its slot waits for its end",
    () =>
      Effect.gen(function* () {
        const limiter = yield* BillsRateLimiter.make({ limit: 1, window: Duration.millis(1000), margin: 0 })
        const server = makeServer()
        const answered = limiter.withPermit("spotBills", observe)
        // Twelve steady answers: the round trips are trusted and vary not at all.
        for (let i = 0; i < 12; i++) {
          const fiber = yield* Effect.fork(answered(server.request(75)))
          yield* TestClock.adjust(Duration.millis(1150))
          yield* Fiber.join(fiber)
        }
        // Then a request that ends after 400 ms without an answer, its arrival unknown.
        const lost = yield* Effect.fork(
          limiter.withPermit("spotBills", () => ({ serverTime: undefined, rateLimited: false, answered: false }))(
            Effect.sleep(Duration.millis(400))
          )
        )
        yield* Effect.yieldNow()
        const next = yield* Effect.fork(timed(limiter.take("spotBills")))
        yield* TestClock.adjust(Duration.seconds(3))
        yield* Fiber.join(lost)
        expect((yield* Fiber.join(next)).millis).toBe(1400)
      })
  )
})
