/**
 * The spot walk's carry of edge ids between pages. When a page ends inside a group of bills
 * that share one millisecond, the next window starts at that millisecond again, and the ids
 * already emitted there must be dropped when they come back, even over several pages in a row
 * at the same edge. Groups close to the page limit are what makes that happen; these are fixed
 * cases that property runs found, kept so that no run depends on chance. (With exclusive bounds
 * the same shapes did not need the carry to come out right, so they are not repeated here.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { crowdedMilliseconds, type Shape, spotBills } from "../support/billScenarios.js"
import { fakeStack } from "../support/fakeStack.js"
import { collect, expectExactly, expectTimeOrder } from "../support/streamCheck.js"

const cases: ReadonlyArray<{
  readonly shape: Shape
  readonly order: "newest-first" | "oldest-first"
  readonly bounds: "inclusive" | "exclusive"
}> = [
  // Found by the property test: 400 bills, groups up to 99, oldest-first, inclusive bounds.
  { shape: { seed: 1, count: 400, maxGroup: 99, maxGap: 1 }, order: "oldest-first", bounds: "inclusive" },
  { shape: { seed: 2, count: 400, maxGroup: 99, maxGap: 3 }, order: "oldest-first", bounds: "inclusive" },
  // And 101 bills, newest-first.
  { shape: { seed: 1, count: 101, maxGroup: 99, maxGap: 1 }, order: "newest-first", bounds: "inclusive" },
  { shape: { seed: 3, count: 400, maxGroup: 99, maxGap: 1 }, order: "newest-first", bounds: "inclusive" }
]

describe("spot walk: ids at the edge millisecond are carried from page to page", () => {
  for (const { bounds, order, shape } of cases) {
    it.effect(
      `${shape.count} bills in groups up to ${shape.maxGroup}, seed ${shape.seed} (${order}, ${bounds})`,
      () => {
        const bills = spotBills(shape)
        return Effect.gen(function* () {
          // The case is about groups that nearly fill a page, not about a millisecond that overfills one.
          expect(crowdedMilliseconds(bills)).toEqual([])
          yield* TestClock.setTime(Number(bills[bills.length - 1]?.cTime) + 1)
          const api = yield* BillsApi
          const { bills: got, exit } = yield* collect(api.streamSpotBills())
          expect(exit._tag).toBe("Success")
          expectExactly(got, bills)
          expectTimeOrder(got, order)
        }).pipe(
          Effect.provide(
            fakeStack({ exchange: { bills: { spot: bills }, order, bounds, rateLimit: false }, rateLimit: false })
          )
        )
      }
    )
  }
})
