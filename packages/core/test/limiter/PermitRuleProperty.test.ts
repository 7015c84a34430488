import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as TestContext from "effect/TestContext"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BillsApi } from "../../src/index.js"
import { FakeExchange } from "../../src/testing/index.js"
import { busiestWindow, runOnTestClock } from "../support/fakeStack.js"
import { type Leg, routeStack, type Stamps } from "../support/routeStack.js"
import { propertyParameters } from "../support/walkProperty.js"

const requests = 50

/**
 * A route whose two legs vary apart, each drawn on its own for every request: the network the
 * limiter's rules must hold on (see `internal/permitRule.ts`), the way there and the way back
 * are separate packets. `base` is the fastest round trip, `jitter` how much each leg may add.
 */
const routeCase = fc.record({
  base: fc.integer({ min: 0, max: 400 }),
  jitter: fc.integer({ min: 0, max: 400 }),
  there: fc.array(fc.noBias(fc.integer({ min: 0, max: 1000 })), { minLength: requests, maxLength: requests }),
  back: fc.array(fc.noBias(fc.integer({ min: 0, max: 1000 })), { minLength: requests, maxLength: requests }),
  fibers: fc.integer({ min: 1, max: 12 })
})

type RouteCase = typeof routeCase extends fc.Arbitrary<infer A> ? A : never

const legOf =
  (c: RouteCase) =>
  (n: number): Leg => ({
    there: Math.round(c.base / 2 + ((c.there[n % requests] ?? 0) / 1000) * (c.jitter / 2)),
    back: Math.round(c.base / 2 + ((c.back[n % requests] ?? 0) / 1000) * (c.jitter / 2))
  })

const runCase = (c: RouteCase, stamps: Stamps) =>
  Effect.gen(function* () {
    const api = yield* BillsApi
    const exchange = yield* FakeExchange
    const perFiber = Math.ceil(requests / c.fibers)
    const exit = yield* runOnTestClock(
      Effect.forEach(
        Array.from({ length: c.fibers }),
        () => Effect.forEach(Array.from({ length: perFiber }), () => api.spotBills({ limit: 1 })),
        { concurrency: "unbounded", discard: true }
      ),
      Duration.millis(200)
    )
    if (Exit.isFailure(exit)) return yield* Effect.die(`the calls failed: ${String(exit.cause)}`)
    const rateLimited = (yield* exchange.stats).spotBills.rateLimited
    const arrivals = (yield* exchange.requests).map((r) => r.arrivalMillis)
    expect(rateLimited).toBe(0)
    expect(busiestWindow(arrivals, 1000)).toBeLessThanOrEqual(10)
  }).pipe(
    Effect.provide(routeStack({ stamps, route: legOf(c), exchange: { generate: { seed: 11, spot: 5, funding: 0 } } }))
  )

// The limiter's promise, over any route whose legs vary apart within a bound: never an eleventh
// arrival in a second at the strict window, with the server's stamps (v2) and without (v3).
describe("BillsRateLimiter over routes whose legs vary apart (property)", () => {
  for (const [stamps, seed] of [
    ["stamped", 38_201],
    ["stamp-free", 38_202]
  ] as const) {
    it(`${stamps}: no 429 and at most 10 arrivals in any second`, { timeout: 240_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(routeCase, (c) =>
          Effect.runPromise(runCase(c, stamps).pipe(Effect.provide(TestContext.TestContext)))
        ),
        // Shrinking 100 drawn legs takes minutes; the first counterexample is reported whole.
        { ...propertyParameters(12, seed), endOnFailure: true }
      )
    })
  }
})
