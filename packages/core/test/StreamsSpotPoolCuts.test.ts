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
import { BillsApi } from "../src/index.js"
import { FakeExchange } from "../src/testing/index.js"
import { spotBills } from "./support/billScenarios.js"
import { fakeStack, runOnTestClock } from "./support/fakeStack.js"
import { expectExactly } from "./support/streamCheck.js"

const bills = spotBills({ seed: 23, count: 20_000, maxGroup: 3, maxGap: 4 })

/** A full export with the default concurrency, `latency` ms away; its pages and the exchange's counters. */
const exportAt = (latency: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Number(bills[bills.length - 1]?.cTime) + 1)
    const api = yield* BillsApi
    const exit = yield* runOnTestClock(Stream.runCollect(api.streamSpotPages()), 10)
    if (Exit.isFailure(exit)) return yield* Effect.dieMessage(String(exit.cause))
    const pages = Chunk.toReadonlyArray(exit.value)
    expectExactly(
      pages.flatMap((page) => page.bills),
      bills
    )
    const stats = (yield* (yield* FakeExchange).stats).spotBills
    expect(stats.rateLimited).toBe(0)
    // Each segment ends with a page that is not full; a single walk has one such page.
    return { segments: pages.filter((page) => page.received < 100).length, requests: stats.requests }
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
})
