/**
 * A futures history that starts years after the walk's floor (2018, or the query's `from`): the
 * interface answers at most 100 days a request, so the years before the first bill cost one
 * request per 100 days whatever the walk does. The pool asks those parts at once, one width
 * each, rather than a round trip apart or in pieces cut at the density of the bills.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi, contractHistoryStartMillis, contractMaxSpanMillis } from "../../src/index.js"
import { BillGenerator, FakeExchange } from "../../src/testing/index.js"
import { fakeStack, runOnTestClock, timed } from "../support/fakeStack.js"

const day = 86_400_000
const now = Date.UTC(2026, 10, 27)
// The last 90 days hold the bills: the first page shows the server's order, which a cut needs.
const start = now - 91 * day
const bills = BillGenerator.generateContract({
  count: 1_000,
  startMillis: start,
  endMillis: start + 90 * day,
  seed: 38
})

describe("streamContractBills over years with no bill", () => {
  for (const latency of [150, 300]) {
    it.effect(`${latency} ms away: one request per 100 days of the gap, asked at once, every bill once`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        const exit = yield* runOnTestClock(timed(Stream.runCollect(api.streamContractBills())), 50)
        if (Exit.isFailure(exit)) return expect.fail(String(exit.cause))
        const got = [...exit.value.value].map((bill) => bill.billId)
        expect(new Set(got).size).toBe(got.length)
        expect(got.sort()).toEqual(bills.map((bill) => bill.billId).sort())
        const requests = (yield* exchange.requests).filter((r) => r.operation === "contractBills").length
        // The fewest one walk can make: a width each for the time without bills, a page each for the bills.
        const empty = Math.ceil((start - contractHistoryStartMillis) / contractMaxSpanMillis)
        const fewest = empty + Math.ceil(bills.length / 100)
        // Besides those: the end of the bills' walk, and the first page's part of the gap.
        expect(requests).toBeLessThanOrEqual(fewest + 5)
        // At 10 a second, the requests' own time and a round trip or two, not one round trip per empty part.
        expect(exit.value.millis).toBeLessThanOrEqual(Math.ceil(requests / 10) * 1000 + 3 * latency)
      }).pipe(
        Effect.provide(fakeStack({ exchange: { bills: { contract: bills }, latency: { millis: latency } } }, "v3"))
      )
    )
  }

  // A sparse history: a few bills on each side of every millisecond where the walk cuts one
  // request's width off the next (from the first page's slice back), so a part that overlaps its
  // neighbour repeats a bill and one that leaves a millisecond out loses one.
  const width = contractMaxSpanMillis - 1
  const hi = now - 1
  const times = Array.from({ length: 12 }, (_, k) => hi - width + 1 - k * width).flatMap((edge) =>
    [-2, -1, 0, 1, 2].map((d) => edge + d)
  )
  const sparse = BillGenerator.generateContract({ count: times.length, startMillis: start, endMillis: now, seed: 7 })
    .slice(0, times.length)
    .map((bill, i) => ({ ...bill, cTime: String(times[i]) }))
  for (const apiVersion of ["v2", "v3"] as const) {
    it.effect(`${apiVersion}: bills on both sides of every cut between two parts come once each`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const api = yield* BillsApi
        const exit = yield* runOnTestClock(Stream.runCollect(api.streamContractBills()), 50)
        if (Exit.isFailure(exit)) return expect.fail(String(exit.cause))
        const got = [...exit.value].map((bill) => bill.billId)
        expect(new Set(got).size).toBe(got.length)
        expect(got.sort()).toEqual(sparse.map((bill) => bill.billId).sort())
      }).pipe(
        Effect.provide(fakeStack({ exchange: { bills: { contract: sparse }, latency: { millis: 150 } } }, apiVersion))
      )
    )
  }
})
