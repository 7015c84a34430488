import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { BillsRateLimiter, type BillsRateLimiterShape, type PermitOutcome } from "../../src/index.js"
import { busiestWindow } from "../support/fakeStack.js"

/**
 * A server reached through `limiter`: request `n` (in grant order) takes `up(n)` ms to the server,
 * where it is counted and stamped, and 75 ms back; the answers carry the stamp, or nothing.
 */
const routeOf = (limiter: BillsRateLimiterShape, stamps: "stamped" | "stamp-free") => {
  const arrivals: Array<number> = []
  let sent = 0
  const observe = (exit: Exit.Exit<unknown, unknown>): PermitOutcome => ({
    serverTime: stamps === "stamped" && Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : undefined,
    rateLimited: false,
    answered: true
  })
  const take = (up: (n: number) => number) =>
    limiter.withPermit(
      "spotBills",
      observe
    )(
      Effect.gen(function* () {
        const n = sent++
        yield* Effect.sleep(Duration.millis(up(n)))
        const stamp = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        arrivals[n] = stamp
        yield* Effect.sleep(Duration.millis(75))
        return stamp
      })
    )
  return { arrivals, take }
}

// What a loopback far run showed (bench/farTrace.ts, v2, 150 ms, a loaded machine): the first
// request and the nine that followed its answer all spent 200+ ms on their way (new connections,
// a busy event loop), so the stamps, trusted after ten answers, took that for the fastest way
// there. The eleventh request then took 95 ms, and a permit already asleep on the slow way's
// instant woke after that answer and went anyway: an eleventh arrival in a second, a 429.
describe("BillsRateLimiter: a way there shorter than any seen moves permits already asleep", () => {
  for (const stamps of ["stamped", "stamp-free"] as const) {
    it.effect(`${stamps}: a first window of slow ways, then a fast one, still at most 10 arrivals in any second`, () =>
      Effect.gen(function* () {
        const limiter = yield* BillsRateLimiter.make()
        const route = routeOf(limiter, stamps)
        const arrivals = route.arrivals
        const take = (up: number) => route.take(() => up)
        const fiber = yield* Effect.fork(
          Effect.gen(function* () {
            // The first alone, nine at once after its answer: all 250 ms on the way (answers at 325 and 650).
            yield* take(250)
            const burst = yield* Effect.fork(
              Effect.all(
                Array.from({ length: 9 }, () => take(250)),
                { concurrency: "unbounded", discard: true }
              )
            )
            yield* Effect.sleep(Duration.millis(100))
            // The eleventh, asked for late enough to be safe whatever the rule (granted at 1,175 ms
            // at the earliest), takes 75 ms: its answer at 1,325 shows the faster way.
            const fast = yield* Effect.fork(Effect.zipRight(Effect.sleep(Duration.millis(750)), take(75)))
            yield* Effect.sleep(Duration.millis(50))
            // The twelfth asks at 1,200 ms and sleeps until the second one's slot opens by the slow ways
            // (1,350 ms); after the fast answer that instant is 350 ms later.
            const next = yield* Effect.fork(Effect.zipRight(Effect.sleep(Duration.millis(725)), take(75)))
            yield* Fiber.join(burst)
            yield* Fiber.join(fast)
            yield* Fiber.join(next)
          })
        )
        yield* TestClock.adjust(Duration.seconds(10))
        yield* Fiber.join(fiber)
        expect(arrivals).toHaveLength(12)
        expect(busiestWindow(arrivals, 1000)).toBe(10)
      })
    )
  }
})

// Over loopback every slot paid how much the last 20 ways there (or round trips) varied, 40-140 ms
// of a loaded event loop, although the rule knows each request's own way (its stamp) and only
// needs a bound on how much faster the next one can be than the fastest seen.
describe("BillsRateLimiter: once the fastest way has settled, a slot costs its own excess, not the spread", () => {
  for (const stamps of ["stamped", "stamp-free"] as const) {
    it.effect(`${stamps}: request p + 10 reaches the server a window, the margin and p + 10's excess after p`, () =>
      Effect.gen(function* () {
        const limiter = yield* BillsRateLimiter.make()
        const route = routeOf(limiter, stamps)
        const arrivals = route.arrivals
        // Request n takes 75 to 115 ms to the server (75 for the first), 75 ms back.
        const take = route.take((n) => 75 + ((n * 37) % 41))
        const fiber = yield* Effect.fork(
          Effect.zipRight(
            take,
            Effect.all(
              Array.from({ length: 10 }, () => Effect.repeatN(take, 7)),
              { concurrency: "unbounded", discard: true }
            )
          )
        )
        yield* TestClock.adjust(Duration.seconds(20))
        yield* Fiber.join(fiber)
        expect(arrivals).toHaveLength(81)
        expect(busiestWindow(arrivals, 1000)).toBe(10)
        // From the fifth window on, the fastest way (the first request's) is older than the last 20.
        // Each slot costs the excess of its own way over the fastest (up to 40 ms), or, as the
        // permits go in order, of one granted just before it in the same instant; no more.
        const gaps = arrivals.slice(40).map((at, i) => at - (arrivals[i + 30] as number))
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1025)
        expect(Math.max(...gaps)).toBeLessThanOrEqual(1025 + 41)
        expect(gaps.reduce((a, b) => a + b, 0) / gaps.length).toBeLessThan(1025 + 35)
      })
    )
  }
})
