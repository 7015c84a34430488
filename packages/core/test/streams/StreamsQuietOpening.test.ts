/**
 * A history that ends a while before the clock (a user who last traded yesterday), walked 150 ms
 * from the exchange: the first page spans the quiet day and its bills, so the span's density is far
 * below the bills'. Cut at the span's density, the opening's pieces put every bill in the first
 * piece and the other walks' pieces come back empty; the walk then reads the history a round trip
 * behind the limit. The pool opens at the bills' own density instead (`openingDensity` in
 * `spotPlan.ts`). Against the fake exchange's strict 10-per-second window, under the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi, contractHistoryStartMillis, contractMaxSpanMillis } from "../../src/index.js"
import { BillGenerator, FakeExchange } from "../../src/testing/index.js"
import { spotBills } from "../support/billScenarios.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"

const day = 86_400_000
const hour = 3_600_000

// 3,000 bills (30 pages) over about a quarter of an hour, the last a day before the clock.
const spot = spotBills({ seed: 37, count: 3_000, maxGroup: 3, maxGap: 600 })
const contractStart = Date.UTC(2025, 6, 1)
// 3,000 contract bills over twelve hours, the last a day before the clock.
const contract = BillGenerator.generateContract({
  count: 3_000,
  startMillis: contractStart,
  endMillis: contractStart + 12 * hour,
  seed: 38
})

const cases = [
  { account: "spot" as const, bills: spot },
  { account: "contract" as const, bills: contract }
]

describe("a history that ends a day before the clock, 150 ms away", () => {
  for (const { account, bills } of cases) {
    it.effect(`${account}: the opening's pieces are cut at the bills' density, not the quiet day's`, () =>
      Effect.gen(function* () {
        const last = Math.max(...bills.map((bill) => Number(bill.cTime)))
        yield* TestClock.setTime(last + day)
        const api = yield* BillsApi
        const stream: Stream.Stream<{ readonly billId: string }, unknown> =
          account === "spot" ? api.streamSpotBills() : api.streamContractBills()
        const exit = yield* runOnTestClock(Stream.runCollect(stream), 10)
        if (Exit.isFailure(exit)) return expect.fail(String(exit.cause))
        const ids = Chunk.toReadonlyArray(exit.value).map((bill) => bill.billId)
        expect(new Set(ids).size).toBe(ids.length)
        expect([...ids].sort()).toEqual(bills.map((bill) => bill.billId).sort())
        const exchange = yield* FakeExchange
        const operation = account === "spot" ? "spotBills" : "contractBills"
        expect((yield* exchange.stats)[operation].rateLimited).toBe(0)
        const arrivals = (yield* exchange.requests)
          .filter((request) => request.operation === operation)
          .map((request) => request.arrivalMillis)
        // Slot by slot: request p + 10 follows request p by the window and the limiter's margin
        // (1,025 ms, and 2 ms of the TestClock's rounding) when a walk stands ready.
        const late = arrivals.slice(10).flatMap((at, p) => {
          const by = at - (arrivals[p] as number) - 1_025
          return by > 2 ? [by] : []
        })
        // The fewest requests one walk could make: a page per 100 bills, and (contract) a request per
        // 100 days of the years before the first bill, back to the exchange's opening.
        const gap =
          account === "contract" ? Math.ceil((contractStart - contractHistoryStartMillis) / contractMaxSpanMillis) : 0
        const fewest = gap + Math.ceil(bills.length / 100)
        // At the span's density, spot 37 (3,528 ms, a slot late) and contract 64 (6,306 ms); at
        // the bills', 33 (3,228 ms, none late) and 60 (5,580 ms).
        expect(arrivals.length).toBeLessThanOrEqual(fewest + 3)
        if (account === "spot") {
          // Request p + 10 a window and the margin after request p, and every request but the first
          // a round trip after it: the least time the requests could take, and the clock's rounding.
          const windows = Math.ceil(arrivals.length / 10) - 1
          const least = (arrivals.length - 10 * windows === 1 ? 0 : 150) + windows * 1_025
          expect((arrivals[arrivals.length - 1] as number) - (arrivals[0] as number)).toBeLessThanOrEqual(least + 10)
          expect(late).toEqual([])
        }
      }).pipe(Effect.provide(fakeStack({ exchange: { bills: { [account]: bills }, latency: { millis: 150 } } }, "v3")))
    )
  }
})
