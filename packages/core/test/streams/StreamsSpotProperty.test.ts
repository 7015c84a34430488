import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import { BillsApi, type BillsError } from "../../src/index.js"
import type { SpotWireBill } from "../../src/testing/index.js"
import { crowdedMilliseconds, epoch, lateSpotBill, selected, spotBills } from "../support/billScenarios.js"
import { collect, expectExactly, expectNoRepeatsWithin, expectTimeOrder } from "../support/streamCheck.js"
import {
  arrivals,
  position,
  propertyParameters,
  shapeNearLimit,
  shapeWithCrowd,
  walkCase,
  walkStack
} from "../support/walkProperty.js"

/** Where a window bound goes: near a random bill, or near the crowded millisecond. */
const anchor = fc.record({
  at: fc.oneof({ arbitrary: position, weight: 3 }, { arbitrary: fc.constant("crowd" as const), weight: 1 }),
  delta: fc.integer({ min: -1, max: 1 })
})

const spotCase = walkCase(shapeWithCrowd({ min: 90, max: 130 }), anchor, ["trade_in", "deposit"])

// No coin or bizType filter here: a filter splits the groups the case is about.
const nearLimitCase = walkCase(shapeNearLimit, anchor, ["trade_in", "deposit"]).map((c) => ({
  ...c,
  coinId: undefined,
  bizType: undefined
}))

type SpotCase = typeof spotCase extends fc.Arbitrary<infer A> ? A : never

const boundOf = (bills: ReadonlyArray<SpotWireBill>, crowdAt: number | undefined, a: SpotCase["from"]) => {
  if (a === undefined || (a.at === "crowd" && crowdAt === undefined)) return undefined
  const base =
    a.at === "crowd"
      ? (crowdAt ?? epoch)
      : bills.length === 0
        ? epoch
        : Number(bills[Math.floor(a.at * (bills.length - 1))]?.cTime)
  return Math.max(0, base + a.delta)
}

const runCase = (c: SpotCase) => {
  const bills = spotBills(c.shape)
  const crowdAt = c.shape.crowd === undefined ? undefined : Number(bills.find((b) => b.billId.startsWith("9"))?.cTime)
  let from = boundOf(bills, crowdAt, c.from)
  let to = boundOf(bills, crowdAt, c.to)
  if (from !== undefined && to !== undefined && from > to) [from, to] = [to, from]
  const query = { from, to, coinId: c.coinId, bizType: c.bizType, concurrency: c.concurrency }
  const expected = selected(bills, query)
  const crowded = crowdedMilliseconds(expected)
  const { late, arrive } = arrivals({ account: "spot", walk: c, bills, from, to, maxLate: 5, lateBill: lateSpotBill })

  return Effect.gen(function* () {
    const api = yield* BillsApi
    const { bills: got, exit } = yield* collect(api.streamSpotBills(query), arrive)
    const lateSelected = selected(late, query)
    if (crowded.length > 0) {
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? exit.cause : undefined
      expect(error?._tag).toBe("Fail")
      const failure = error?._tag === "Fail" ? (error.error as BillsError) : undefined
      expect(failure?._tag).toBe("BillsIncomplete")
      expect(crowded).toContain(failure?._tag === "BillsIncomplete" ? failure.millisecond : undefined)
      expectNoRepeatsWithin(got, expected, lateSelected)
    } else {
      if (Exit.isFailure(exit)) expect.fail(`the stream failed: ${String(exit.cause)}`)
      expectExactly(got, expected, lateSelected)
      expectTimeOrder(got, c.order)
    }
  }).pipe(Effect.provide(walkStack("spot", bills, c)))
}

describe("streamSpotBills (property)", () => {
  it("yields every selected bill exactly once, or fails naming a crowded millisecond", {
    timeout: 120_000
  }, async () => {
    await fc.assert(
      fc.asyncProperty(spotCase, (c) => Effect.runPromise(runCase(c))),
      propertyParameters(100, 20251)
    )
  })

  it("yields every bill exactly once when same-millisecond groups come close to the page limit", {
    timeout: 120_000
  }, async () => {
    await fc.assert(
      fc.asyncProperty(nearLimitCase, (c) => Effect.runPromise(runCase(c))),
      propertyParameters(40, 20253)
    )
  })
})
