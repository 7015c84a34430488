import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { BillsApi } from "../../src/index.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { busiestWindow, runOnTestClock } from "../support/fakeStack.js"
import { type Leg, routeStack, type Stamps } from "../support/routeStack.js"

const leg = (roundTrip: number): Leg => ({ there: roundTrip / 2, back: roundTrip / 2 })

// Each safety rule of the limiter, with the server's stamps (v2) and without (v3): the same
// route must never put an eleventh arrival into a second at the fake's strict window.
for (const stamps of ["stamped", "stamp-free"] as const satisfies ReadonlyArray<Stamps>) {
  describe(`BillsRateLimiter safety, ${stamps} answers`, () => {
    it.effect("a route that varied 100–200 ms, then a request of 30 ms: still at most 10 arrivals in any second", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const call = api.spotBills({ limit: 1 })
        // Two requests alone (each after the other's answer), then nine at once: the tenth
        // answer comes in the first window, the eleventh request waits on the first one's slot.
        const exit = yield* runOnTestClock(
          Effect.zipRight(
            Effect.zipRight(call, call),
            Effect.all(
              Array.from({ length: 9 }, () => call),
              { concurrency: "unbounded", discard: true }
            )
          ),
          Duration.millis(50)
        )
        expect(Exit.isSuccess(exit)).toBe(true)
        const arrivals = (yield* exchange.requests).map((r) => r.arrivalMillis)
        expect(arrivals).toHaveLength(11)
        expect((yield* exchange.stats).spotBills.rateLimited).toBe(0)
        expect(busiestWindow(arrivals, 1000)).toBe(10)
      }).pipe(
        Effect.provide(
          routeStack({
            stamps,
            // The first two alike, so that two answers alone show no variation at all.
            route: (n) => leg([200, 200, 150, 100, 180, 120, 160, 140, 190, 110][n] ?? 30),
            exchange: { generate: { seed: 11, spot: 5, funding: 0 } }
          })
        )
      )
    )

    it.effect("after a 429 the next permits are spaced from answers: a window and a round trip apart", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const exit = yield* runOnTestClock(
          Effect.forEach(
            Array.from({ length: 10 }),
            () => Effect.forEach(Array.from({ length: 6 }), () => api.spotBills({ limit: 1 })),
            { concurrency: "unbounded", discard: true }
          ),
          Duration.millis(50)
        )
        expect(Exit.isSuccess(exit)).toBe(true)
        const log = yield* exchange.requests
        // 60 calls, one of them refused once and sent again.
        expect(log).toHaveLength(61)
        const refused = log.findIndex((r) => r.outcome._tag === "Faulted")
        expect(refused).toBe(29)
        const arrivals = log.map((r) => r.arrivalMillis)
        // Before the 429 the rule places arrivals (a window and the margin apart on a steady route);
        // from the permits that wait on the refused request's slot on, a window, the margin and
        // the round trip.
        expect((arrivals[25] as number) - (arrivals[15] as number)).toBe(1025)
        for (let p = refused + 10; p < arrivals.length; p++) {
          expect((arrivals[p] as number) - (arrivals[p - 10] as number)).toBeGreaterThanOrEqual(1025 + 150)
        }
      }).pipe(
        Effect.provide(
          routeStack({
            stamps,
            route: () => leg(150),
            exchange: {
              generate: { seed: 11, spot: 5, funding: 0 },
              faults: { scripted: [{ nth: 30, operation: "spotBills", fault: FakeFault.Status({ status: 429 }) }] }
            }
          })
        )
      )
    )
  })
}

describe("BillsRateLimiter: stamps, when answers carry them, place arrivals rather than round trips", () => {
  // The way there steady (75 ms), the way back anywhere from 75 to 275 ms.
  const route = (n: number): Leg => ({ there: 75, back: 75 + ((n * 37) % 201) })
  const run = Effect.gen(function* () {
    const api = yield* BillsApi
    const exchange = yield* FakeExchange
    const exit = yield* runOnTestClock(
      Effect.forEach(
        Array.from({ length: 10 }),
        () => Effect.forEach(Array.from({ length: 6 }), () => api.spotBills({ limit: 1 })),
        { concurrency: "unbounded", discard: true }
      ),
      Duration.millis(50)
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect((yield* exchange.stats).spotBills.rateLimited).toBe(0)
    const arrivals = (yield* exchange.requests).map((r) => r.arrivalMillis)
    expect(busiestWindow(arrivals, 1000)).toBe(10)
    // From the third window on (the stamps trusted): request p + 10 after request p.
    return arrivals.slice(30).map((at, i) => at - (arrivals[i + 20] as number))
  })

  it.effect("stamped: a way back that varies costs nothing, each slot a window and the margin", () =>
    Effect.gen(function* () {
      expect(new Set(yield* run)).toEqual(new Set([1025]))
    }).pipe(
      Effect.provide(
        routeStack({ stamps: "stamped", route, exchange: { generate: { seed: 11, spot: 5, funding: 0 } } })
      )
    )
  )

  it.effect("stamp-free: the same route costs how much the round trips vary, and stays safe", () =>
    Effect.gen(function* () {
      const gaps = yield* run
      expect(Math.min(...gaps)).toBeGreaterThan(1025)
    }).pipe(
      Effect.provide(
        routeStack({ stamps: "stamp-free", route, exchange: { generate: { seed: 11, spot: 5, funding: 0 } } })
      )
    )
  )
})
