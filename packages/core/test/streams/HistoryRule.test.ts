/**
 * Learning the exchange's history rule from one refusal: which rule (a horizon refuses a narrow
 * window at the refused start, a width rule does not), where the horizon is or how wide a window
 * may be, and how many probes it takes, against a model of the exchange's rule.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { BillsApiError } from "../../src/index.js"
import { hintOf, learn, type Probe } from "../../src/internal/historyRule.js"

const day = 86_400_000
const now = Date.UTC(2025, 6, 1)

/** An exchange's rule as a probe, counting the probes. */
const model = (rule: { readonly horizon?: number; readonly width?: number }, msg: string) => {
  let probes = 0
  const probe: Probe = (start, end) =>
    Effect.sync(() => {
      probes++
      if (rule.horizon !== undefined && start < rule.horizon) return msg
      if (rule.width !== undefined && end - start > rule.width) return msg
      return undefined
    })
  return { probe, probes: () => probes }
}

const refusal = (msg: string) =>
  new BillsApiError({ operation: "spotBills", reason: "HistoryLimit", code: "40704", msg, status: 400 })

describe("hintOf", () => {
  it("reads a number of days, or three months as 90 days", () => {
    expect(hintOf("startTime must be within the last 30 days")).toBe(30 * day)
    expect(hintOf("Only the last three months of data can be queried")).toBe(90 * day)
    expect(hintOf("Parameter verification failed")).toBeUndefined()
  })
})

describe("learn", () => {
  it.effect("a hinted horizon: three probes, clipped a minute above it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const msg = "Only the last three months of data can be queried"
      const exchange = model({ horizon: now - 90 * day }, msg)
      const rule = yield* learn(exchange.probe, refusal(msg), { start: Date.UTC(2020, 0, 1), end: now }, {})
      expect(rule).toEqual({ servedFrom: now - 90 * day + 60_000 + 1 })
      expect(exchange.probes()).toBe(3)
    })
  )

  it.effect("a horizon the text does not name: bisected to the millisecond, clipped a minute above it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const exchange = model({ horizon: now - 10 * day + 12_345 }, "out of range")
      const rule = yield* learn(exchange.probe, refusal("out of range"), { start: now - 40 * day, end: now }, {})
      expect(rule).toEqual({ servedFrom: now - 10 * day + 12_345 + 60_000 + 1 })
      // One probe at the refused start, one at the end, then one per halving of 40 days.
      expect(exchange.probes()).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(40 * day)))
    })
  )

  it.effect("a width rule: the narrow probe at the start is accepted, the width is the hint", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const msg = "time range cannot exceed 30 days"
      const exchange = model({ width: 30 * day }, msg)
      const rule = yield* learn(exchange.probe, refusal(msg), { start: now - 200 * day, end: now }, {})
      expect(rule).toEqual({ maxWidth: 30 * day })
      expect(exchange.probes()).toBe(2)
    })
  )

  it.effect("a width rule the text does not name: halved until accepted, never wider than allowed", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const exchange = model({ width: 7 * day }, "refused")
      const rule = yield* learn(exchange.probe, refusal("refused"), { start: undefined, end: now }, {})
      expect(rule?.maxWidth).toBeLessThanOrEqual(7 * day)
      expect(rule?.maxWidth).toBeGreaterThan(3.5 * day)
    })
  )

  it.effect("a refusal that teaches nothing new gives undefined: the walk fails with it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const exchange = model({ width: 30 * day }, "time range cannot exceed 30 days")
      const again = yield* learn(
        exchange.probe,
        refusal("time range cannot exceed 30 days"),
        { start: now - 60 * day, end: now },
        { maxWidth: 30 * day }
      )
      expect(again).toBeUndefined()
    })
  )
})
