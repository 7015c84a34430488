import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { BillsApi, BillsRateLimiter, type BillsRateLimiterShape } from "../../src/index.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { busiestWindow, fakeStack, runOnTestClock, timed } from "../support/fakeStack.js"

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** Forks one taker per label, in order, each recording when its permit came. */
const forkTakers = (limiter: BillsRateLimiterShape, labels: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const granted: Array<{ readonly label: string; readonly at: number }> = []
    const fibers: Array<Fiber.RuntimeFiber<void>> = []
    for (const label of labels) {
      fibers.push(
        yield* Effect.fork(
          Effect.flatMap(limiter.take("spotBills"), () => Effect.map(now, (at) => void granted.push({ label, at })))
        )
      )
      // Let the taker book before the next one arrives.
      yield* Effect.yieldNow()
    }
    return { granted, fibers }
  })

describe("BillsRateLimiter", () => {
  it.effect("grants `limit` permits at once, then one per slot a window plus margin later", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make()
      const { fibers, granted } = yield* forkTakers(
        limiter,
        Array.from({ length: 25 }, (_, i) => `t${i}`)
      )
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.joinAll(fibers)
      expect(granted.map((g) => g.at)).toEqual([
        ...Array<number>(10).fill(0),
        ...Array<number>(10).fill(1025),
        ...Array<number>(5).fill(2050)
      ])
    })
  )

  it.effect("limit, window and margin are configurable; operations have separate windows", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make({ limit: 3, window: Duration.millis(500), margin: 0 })
      const times: Array<string> = []
      const take = (operation: "spotBills" | "fundingBills") =>
        Effect.flatMap(limiter.take(operation), () => Effect.map(now, (at) => void times.push(`${operation}@${at}`)))
      const fiber = yield* Effect.fork(
        Effect.all([take("spotBills"), take("spotBills"), take("spotBills"), take("spotBills"), take("fundingBills")], {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.join(fiber)
      expect(times.sort()).toEqual(["fundingBills@0", "spotBills@0", "spotBills@0", "spotBills@0", "spotBills@500"])
    })
  )

  it.effect("a limit below one means one, and a fractional limit is rounded down, never up", () =>
    Effect.gen(function* () {
      for (const [limit, expected] of [
        [0, [0, 1025, 2050]],
        [-3, [0, 1025, 2050]],
        [2.9, [0, 0, 1025]]
      ] as const) {
        const limiter = yield* BillsRateLimiter.make({ limit })
        const { fibers, granted } = yield* forkTakers(limiter, ["a", "b", "c"])
        yield* TestClock.adjust(Duration.seconds(5))
        yield* Fiber.joinAll(fibers)
        const start = granted[0]?.at ?? 0
        expect(granted.map((g) => g.at - start)).toEqual(expected)
      }
    })
  )

  it.effect("a permit counts until its request finishes, so a slow request cannot let the next window open early", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make({ limit: 2, window: Duration.millis(1000), margin: 0 })
      // A first request that takes 300 ms, e.g. on a cold connection: the server may see it late.
      const slow = yield* Effect.fork(limiter.withPermit("spotBills")(Effect.sleep(Duration.millis(300))))
      yield* Effect.yieldNow()
      yield* limiter.take("spotBills")
      const third = yield* Effect.fork(timed(limiter.take("spotBills")))
      yield* TestClock.adjust(Duration.seconds(2))
      yield* Fiber.join(slow)
      expect((yield* Fiber.join(third)).millis).toBe(1300)
    })
  )

  it.effect(
    "a request interrupted on its way may still arrive: its slot lasts the longest round trip seen from its grant",
    () =>
      Effect.gen(function* () {
        const limiter = yield* BillsRateLimiter.make({ limit: 1, window: Duration.millis(1000), margin: 0 })
        // The wire: a request sent now reaches the server `oneWay` ms later whatever its sender
        // does meanwhile, and is answered as long after.
        const arrivals: Array<number> = []
        const send = (oneWay: number) =>
          Effect.gen(function* () {
            const sent = yield* now
            yield* Effect.forkDaemon(
              Effect.zipRight(
                Effect.sleep(Duration.millis(oneWay)),
                Effect.sync(() => void arrivals.push(sent + oneWay))
              )
            )
            yield* Effect.sleep(Duration.millis(2 * oneWay))
          })
        const answered = () => ({ serverTime: undefined, rateLimited: false, answered: true })
        // One answered request: the longest round trip seen is 200 ms.
        yield* Effect.fork(limiter.withPermit("spotBills", answered)(send(100)))
        yield* TestClock.adjust(Duration.millis(200))
        // The next is granted a window later, on a slower way, and given up 10 ms after its grant.
        const given = yield* Effect.fork(limiter.withPermit("spotBills", answered)(send(150)))
        yield* TestClock.adjust(Duration.millis(1010))
        yield* Fiber.interrupt(given)
        const after = yield* Effect.fork(limiter.withPermit("spotBills", answered)(send(100)))
        yield* TestClock.adjust(Duration.seconds(3))
        yield* Fiber.join(after)
        // It reached the server anyway, 150 ms after its grant. Its slot ended 200 ms after the grant,
        // so the next was granted a window later and arrived 1,150 ms after it, not 960 ms.
        expect(arrivals).toHaveLength(3)
        expect((arrivals[2] as number) - (arrivals[1] as number)).toBe(1150)
        expect(busiestWindow(arrivals, 1000)).toBe(1)
      })
  )

  it.effect("a request interrupted before any answer was seen counts a window from its grant", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make({ limit: 1, window: Duration.millis(1000), margin: 0 })
      const hung = yield* Effect.fork(limiter.withPermit("spotBills")(Effect.never))
      yield* TestClock.adjust(Duration.millis(200))
      yield* Fiber.interrupt(hung)
      const next = yield* Effect.fork(timed(limiter.take("spotBills")))
      yield* TestClock.adjust(Duration.seconds(3))
      // Its slot lasts until a window after its grant (1,000 ms), then the next waits a window.
      expect((yield* Fiber.join(next)).millis).toBe(1800)
    })
  )

  it.effect("serves takers first come, first served: a fiber coming back cannot overtake a waiting one", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make({ limit: 1, window: Duration.millis(100), margin: 0 })
      yield* limiter.take("spotBills")
      const greedy: Array<number> = []
      const greedyFiber = yield* Effect.fork(
        Effect.forEach(
          Array.from({ length: 3 }),
          () => Effect.flatMap(limiter.take("spotBills"), () => Effect.map(now, (at) => void greedy.push(at))),
          { discard: true }
        )
      )
      yield* Effect.yieldNow()
      const { fibers, granted } = yield* forkTakers(limiter, ["a", "b", "c"])
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.joinAll([greedyFiber, ...fibers])
      expect(granted.map((g) => `${g.label}@${g.at}`)).toEqual(["a@200", "b@300", "c@400"])
      expect(greedy).toEqual([100, 500, 600])
    })
  )

  it.effect("a taker interrupted while waiting gives its permit back", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make({ limit: 1, window: Duration.seconds(1), margin: 0 })
      yield* limiter.take("spotBills")
      const waiting = yield* Effect.fork(limiter.take("spotBills"))
      yield* TestClock.adjust(Duration.millis(10))
      yield* Fiber.interrupt(waiting)
      // The next taker gets the slot the interrupted one had booked, not the one after it.
      const next = yield* Effect.fork(timed(limiter.take("spotBills")))
      yield* TestClock.adjust(Duration.seconds(2))
      expect((yield* Fiber.join(next)).millis).toBe(990)
    })
  )

  it.effect("interrupting every waiter leaves the window as if they never came", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make()
      const { fibers } = yield* forkTakers(
        limiter,
        Array.from({ length: 40 }, (_, i) => `t${i}`)
      )
      yield* Fiber.interruptAll(fibers.slice(10))
      yield* TestClock.adjust(Duration.millis(1025))
      const after = yield* Effect.fork(Effect.forEach(Array.from({ length: 10 }), () => limiter.take("spotBills")))
      yield* Effect.yieldNow()
      const polled = yield* Fiber.poll(after)
      expect(Option.isSome(polled) && Exit.isSuccess(polled.value)).toBe(true)
    })
  )

  it.effect("the unlimited layer never waits", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter
      yield* Effect.forEach(Array.from({ length: 1000 }), () => limiter.take("fundingBills"))
      expect(yield* now).toBe(0)
    }).pipe(Effect.provide(BillsRateLimiter.layerUnlimited))
  )
})

describe("BillsRateLimiter against the fake exchange's strict window", () => {
  it.effect(
    "1,000 requests from 20 fibers: no 429 from the exchange, within 105% of the minimum 100 s",
    () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const perFiber = 50
        const exit = yield* runOnTestClock(
          timed(
            Effect.forEach(
              Array.from({ length: 20 }),
              () => Effect.forEach(Array.from({ length: perFiber }), () => api.spotBills({ limit: 1 })),
              { concurrency: "unbounded", discard: true }
            )
          )
        )
        expect(Exit.isSuccess(exit)).toBe(true)
        if (Exit.isFailure(exit)) return
        const stats = yield* exchange.stats
        expect(stats.spotBills).toMatchObject({ requests: 1000, succeeded: 1000, rateLimited: 0 })
        expect(
          busiestWindow(
            (yield* exchange.requests).map((r) => r.arrivalMillis),
            1000
          )
        ).toBe(10)
        expect(exit.value.millis).toBeLessThanOrEqual(105_000)
        console.log(`1,000 requests took ${exit.value.millis} ms of test clock; 429s: ${stats.spotBills.rateLimited}`)
      }).pipe(Effect.provide(fakeStack({ exchange: { generate: { seed: 11, spot: 50, funding: 0 } } }))),
    120_000
  )

  it.effect("retries take permits too: with faults, arrivals still never exceed 10 in a second", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const exit = yield* runOnTestClock(
        Effect.forEach(
          Array.from({ length: 10 }),
          () => Effect.forEach(Array.from({ length: 20 }), () => api.fundingBills({ pageSize: 5 })),
          { concurrency: "unbounded", discard: true }
        )
      )
      expect(Exit.isSuccess(exit)).toBe(true)
      const stats = yield* exchange.stats
      expect(stats.fundingBills.faulted).toBeGreaterThan(20)
      expect(stats.fundingBills.succeeded).toBe(200)
      expect(stats.fundingBills.rateLimited).toBe(0)
      const arrivals = (yield* exchange.requests).map((r) => r.arrivalMillis)
      expect(arrivals.length).toBe(200 + stats.fundingBills.faulted)
      expect(busiestWindow(arrivals, 1000)).toBeLessThanOrEqual(10)
    }).pipe(
      Effect.provide(
        fakeStack({
          exchange: {
            generate: { seed: 5, funding: 20, spot: 0 },
            faults: { random: { rate: 0.2, seed: 3, mix: [{ fault: FakeFault.Status({ status: 503 }), weight: 1 }] } }
          },
          config: { retryBaseDelay: Duration.millis(10) }
        })
      )
    )
  )
})

describe("BillsRateLimiter far from the exchange (the server's requestTime places each arrival)", () => {
  // Round trip 150 ms; each half takes up to jitter / 2 more, drawn from a fixed seed per case.
  const cases = [
    { jitter: 0, seed: 1, maxMillis: 30_500 },
    { jitter: 100, seed: 2, maxMillis: 33_000 },
    { jitter: 300, seed: 3, maxMillis: 38_000 }
  ]
  for (const { jitter, maxMillis, seed } of cases) {
    it.effect(
      `300 requests from 10 fibers, 150 ms round trip, jitter ${jitter} ms: no 429, and faster than a window plus a round trip per slot`,
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
          // The rule that waits for each answer needs 29 slots of 1,025 ms + a round trip: 34 s
          // without jitter, about 35.5 s with 100 ms and 38.4 s with 300 ms.
          expect(exit.value.millis).toBeLessThanOrEqual(maxMillis)
          console.log(`jitter ${jitter} ms: 300 requests took ${exit.value.millis} ms of test clock; 429s: 0`)
        }).pipe(
          Effect.provide(
            fakeStack({
              exchange: {
                generate: { seed: 11, spot: 50, funding: 0 },
                latency: { millis: 150, jitterMillis: jitter, seed }
              }
            })
          )
        ),
      60_000
    )
  }
})

describe("BillsRateLimiter: when the server's stamps start to place arrivals", () => {
  // A request to a server whose clock runs 5 s ahead: `up` ms on the way there (where the server
  // stamps and counts it), 75 ms back. Every arrival is logged by the server's clock.
  const serverAhead = 5_000
  const makeServer = () => {
    const arrivals: Array<number> = []
    const request = (up: number) =>
      Effect.gen(function* () {
        yield* Effect.sleep(Duration.millis(up))
        const stamp = (yield* now) + serverAhead
        arrivals.push(stamp)
        yield* Effect.sleep(Duration.millis(75))
        return stamp
      })
    return { arrivals, request }
  }
  const observe = (exit: Exit.Exit<unknown, unknown>) => ({
    serverTime: Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : undefined,
    rateLimited: false
  })

  it.effect("a burst of first requests that all paid a connection set-up does not pass for the fastest way there", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make()
      const server = makeServer()
      // Ten callers at once, each opening a connection (300 ms more on the way there), then
      // reusing it. Were the stamps trusted after ten answers, all of them from cold requests,
      // the first warm request would reach the server 300 ms early.
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

  it.effect("permits waiting for answers are placed again by the stamps as soon as these are trusted", () =>
    Effect.gen(function* () {
      const limiter = yield* BillsRateLimiter.make()
      const server = makeServer()
      const take = () => limiter.withPermit("spotBills", observe)(server.request(75))
      // As the walks do: a first request alone, then nine at once once it has answered, then more.
      const fiber = yield* Effect.fork(
        Effect.zipRight(
          take(),
          Effect.forEach(Array.from({ length: 11 }), take, { concurrency: "unbounded", discard: true })
        )
      )
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.join(fiber)
      // The tenth request waited on the first one's slot from its answer (150 ms): by that rule it
      // would go at 150 + 1,025. Trusted 150 ms later, the stamps place the first one's arrival at
      // 75 ms, the moment its way there is known to take 75 ms: the tenth goes a window and a
      // margin after it was sent, and reaches the server exactly 1,025 ms after the first.
      expect(server.arrivals[10] !== undefined && server.arrivals[0] !== undefined).toBe(true)
      expect((server.arrivals[10] as number) - (server.arrivals[0] as number)).toBe(1025)
      expect(busiestWindow(server.arrivals, 1000)).toBe(10)
    })
  )
})
