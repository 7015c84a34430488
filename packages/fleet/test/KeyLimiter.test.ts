/**
 * A runner's per-key limiter assumes nothing about the way to the exchange (`internal/keyLimiter.ts`):
 * while a runner's first syncs load its machine every way it sees is slow, and once the load has
 * gone a request can reach the exchange faster than any seen. The client's default rule then lets
 * an eleventh request arrive within a second (the pass CPU bench's 429 on `contractBills`); the
 * runner's does not.
 */
import { BillsRateLimiter, type BillsRateLimiterShape, type PermitOutcome } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { busiestWindow } from "../../core/test/support/fakeStack.js"
import * as KeyLimiter from "../src/internal/keyLimiter.js"

/**
 * Ten fibers sending `requests` requests through `limiter`, one after another each: request `n`
 * (in grant order) takes `up(n)` ms to the exchange, which counts and stamps it there, and 5 ms
 * back. Answers `n`'s arrivals.
 */
const arrivalsThrough = (limiter: BillsRateLimiterShape, requests: number, up: (n: number) => number) =>
  Effect.gen(function* () {
    const arrivals: Array<number> = []
    let sent = 0
    const observe = (exit: Exit.Exit<unknown, unknown>): PermitOutcome => ({
      serverTime: Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : undefined,
      rateLimited: false,
      answered: true
    })
    const one = limiter.withPermit(
      "contractBills",
      observe
    )(
      Effect.gen(function* () {
        const n = sent++
        yield* Effect.sleep(Duration.millis(up(n)))
        const stamp = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        arrivals.push(stamp)
        yield* Effect.sleep(Duration.millis(5))
        return stamp
      })
    )
    const fiber = yield* Effect.fork(
      Effect.all(
        Array.from({ length: 10 }, () => Effect.repeatN(one, requests / 10 - 1)),
        { concurrency: "unbounded", discard: true }
      )
    )
    yield* TestClock.adjust(Duration.minutes(1))
    yield* Fiber.join(fiber)
    return arrivals
  })

/** The first 30 requests 120 ms on their way (a loaded machine), the rest 2 ms (the load gone). */
const loadGone = (n: number) => (n < 30 ? 120 : 2)

describe("a runner's per-key limiter", () => {
  it.effect("at most 10 arrivals in any second when the way there gets shorter than any seen", () =>
    Effect.gen(function* () {
      const arrivals = yield* arrivalsThrough(yield* KeyLimiter.make(10), 60, loadGone)
      expect(arrivals).toHaveLength(60)
      expect(busiestWindow(arrivals, 1000)).toBeLessThanOrEqual(10)
    })
  )

  it.effect("the client's default rule, on the same way, lets an eleventh arrive (why the runner's differs)", () =>
    Effect.gen(function* () {
      const arrivals = yield* arrivalsThrough(yield* BillsRateLimiter.make({ limit: 10 }), 60, loadGone)
      expect(arrivals).toHaveLength(60)
      expect(busiestWindow(arrivals, 1000)).toBeGreaterThan(10)
    })
  )
})
