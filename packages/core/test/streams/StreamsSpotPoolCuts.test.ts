/**
 * When the spot pool cuts its window: only while another walk would add requests in flight.
 * Close to the exchange one walk keeps the rate limiter busy alone, so cuts would only add the
 * request each segment's last page costs; far from it, walks must be added to reach the limit.
 * Both against the fake exchange's strict 10-per-second window, under the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Exit from "effect/Exit"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { FakeExchange } from "../../src/testing/index.js"
import { spotBills } from "../support/billScenarios.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"
import { expectExactly } from "../support/streamCheck.js"

const dense = spotBills({ seed: 23, count: 20_000, maxGroup: 3, maxGap: 4 })
// About 90 days of bills: the walk, which has no start, cuts pieces into the years before them.
const sparse = spotBills({ seed: 29, count: 10_000, maxGroup: 3, maxGap: 1_550_000 })

// A short history (30 pages): the walks the pool opens with, and little else.
const short = spotBills({ seed: 37, count: 3_000, maxGroup: 3, maxGap: 4 })

// An incremental sync's window: 1,000 bills over about 30 s, from its first bill on.
const recent = spotBills({ seed: 31, count: 1_000, maxGroup: 3, maxGap: 60 })

/**
 * An export with the default concurrency, `latency` ms away, of the whole history or from `from`;
 * its pages and the exchange's counters.
 */
const exportAt = (latency: number, bills = dense, from?: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Number(bills[bills.length - 1]?.cTime) + 1)
    const api = yield* BillsApi
    const query = from === undefined ? {} : { from: new Date(from) }
    const exit = yield* runOnTestClock(Stream.runCollect(api.streamSpotPages(query)), 10)
    if (Exit.isFailure(exit)) return yield* Effect.dieMessage(String(exit.cause))
    const pages = Chunk.toReadonlyArray(exit.value)
    expectExactly(
      pages.flatMap((page) => page.bills),
      bills
    )
    const exchange = yield* FakeExchange
    const stats = (yield* exchange.stats).spotBills
    expect(stats.rateLimited).toBe(0)
    const arrivals = (yield* exchange.requests).map((request) => request.arrivalMillis)
    // Each segment ends with a page that is not full; a single walk has one such page.
    return { segments: pages.filter((page) => page.received < 100).length, requests: stats.requests, arrivals }
  }).pipe(
    Effect.provide(
      fakeStack({
        exchange: { bills: { spot: bills }, latency: { millis: latency } },
        rateLimit: {}
      })
    )
  )

describe("the spot pool cuts only where another walk adds requests in flight", () => {
  it.effect("next to the exchange, one walk keeps the limiter busy: only the opening burst is cut", () =>
    Effect.gen(function* () {
      const { requests, segments } = yield* exportAt(0)
      // 200 full pages and one that is not. Cutting all along (a segment per 8 pages) makes
      // about 25 segments; while the limiter's opening burst of 10 lasts, no fetch waits, so
      // the walks grow during it, and no more after.
      expect(segments).toBeLessThanOrEqual(10)
      expect(requests).toBeLessThanOrEqual(201 + 9)
    })
  )

  it.effect("150 ms away, walks are added until the limiter is busy", () =>
    Effect.gen(function* () {
      const { segments } = yield* exportAt(150)
      // One walk makes at most 6.7 requests a second here; the limit needs two or more at once.
      expect(segments).toBeGreaterThanOrEqual(4)
    })
  )

  for (const [latency, opening] of [
    [150, 3],
    [300, 9]
  ] as const) {
    it.effect(`${latency} ms away, the pool opens with ${opening} walks one round trip after the first page`, () =>
      Effect.gen(function* () {
        const { arrivals } = yield* exportAt(latency, short)
        const first = arrivals[0] as number
        // From 200 ms on, the nine permits the first page leaves in its window go a round trip after
        // it, not three then six a round trip later (a pattern every later window repeats); nearer,
        // three walks open and the rest wait for Little's law.
        const opened = arrivals.slice(1, 10).filter((at) => at - first <= latency + 2)
        expect(opened.length).toBe(opening)
      })
    )
  }

  for (const latency of [0, 150, 300]) {
    it.effect(
      `${latency} ms away, a window too short for a piece is read by one walk: 1,000 bills in 11 requests`,
      () =>
        Effect.gen(function* () {
          const { requests, segments } = yield* exportAt(latency, recent, Number(recent[0]?.cTime))
          // Ten full pages and the one that finds nothing after them: ⌈1000/100⌉ + 1. Each cut
          // would add about a request; where many accounts share a budget, the economy comes first.
          expect(segments).toBe(1)
          expect(requests).toBe(11)
        })
    )
  }

  for (const [latency, history, name] of [
    [150, dense, "dense"],
    [300, dense, "dense"],
    [300, sparse, "sparse"]
  ] as const) {
    it.effect(`${latency} ms away, ${name} bills: the limiter never waits long for the walks`, () =>
      Effect.gen(function* () {
        const { arrivals } = yield* exportAt(latency, history)
        // Slot by slot, request p + 10 follows request p by the window and the limiter's margin
        // (1,025 ms) when a walk stands ready; any more is time the pool left the limit unused:
        // walks cut at the same time that end together, or the last pieces walked one at a time.
        const late = arrivals.slice(10).map((at, p) => at - (arrivals[p] as number) - 1025)
        console.log(
          `${latency} ms: ${arrivals.length} requests, slots late by more than 2 ms: ${late.flatMap((l, p) => (l > 2 ? [`${p + 10}:${l}`] : [])).join(" ")}`
        )
        // Under the TestClock the limiter's own rounding makes a slot 1 or 2 ms late. Beyond that,
        // a slot may find every walk waiting for an answer once in a while (permits come in
        // clusters), but never for longer than that answer takes.
        const waited = late.filter((l) => l > 2)
        expect(Math.max(0, ...waited)).toBeLessThanOrEqual(latency + 2)
        expect(waited.length).toBeLessThanOrEqual(5)
      })
    )
  }
})
