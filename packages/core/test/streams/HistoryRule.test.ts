/**
 * Learning the exchange's history rule from one refusal: which rule (a horizon refuses a narrow
 * window at the refused start, a width rule does not), where the horizon is or how wide a window
 * may be, and how many probes it takes, against a model of the exchange's rule.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as DateTime from "effect/DateTime"
import { BillsApiError, BillsIncomplete } from "../../src/index.js"
import {
  hintOf,
  isHistoryLimit,
  learn,
  makeRuleCell,
  type Probe,
  ruleFields,
  servedFromOf
} from "../../src/internal/historyRule.js"

const day = 86_400_000
const now = Date.UTC(2025, 6, 1)

/**
 * An exchange's rule as a probe, counting the probes and keeping the earliest start asked for. A
 * window that ends where it starts fails as the exchange's "start after end" does.
 */
const model = (rule: { readonly horizon?: number; readonly width?: number }, msg: string) => {
  let probes = 0
  let earliest = Number.POSITIVE_INFINITY
  const probe: Probe = (start, end) =>
    Effect.suspend(() => {
      probes++
      earliest = Math.min(earliest, start)
      if (end <= start) {
        return Effect.fail(
          new BillsApiError({ operation: "spotBills", reason: "InvalidParameter", code: "-1171", msg, status: 400 })
        )
      }
      if (rule.horizon !== undefined && start < rule.horizon) return Effect.succeed(msg)
      if (rule.width !== undefined && end - start > rule.width) return Effect.succeed(msg)
      return Effect.succeed(undefined)
    })
  return { probe, probes: () => probes, earliest: () => earliest }
}

const refusal = (msg: string) =>
  new BillsApiError({ operation: "spotBills", reason: "HistoryLimit", code: "40704", msg, status: 400 })

describe("hintOf", () => {
  it("reads a number of days, or three months as 90 days", () => {
    expect(hintOf("startTime must be within the last 30 days")).toBe(30 * day)
    expect(hintOf("Only the last three months of data can be queried")).toBe(90 * day)
    expect(hintOf("Parameter verification failed")).toBeUndefined()
    // The ways a number of days may be written.
    expect(hintOf("within the last 7.25 days")).toBe(7.25 * day)
    expect(hintOf("range cannot exceed 30days")).toBe(30 * day)
    expect(hintOf("at most 1 day")).toBe(day)
    expect(hintOf("the last 3  months")).toBe(90 * day)
    expect(hintOf("up to three month")).toBe(90 * day)
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

describe("learn: the horizon at its edges", () => {
  const msg = "Only the last three months of data can be queried"

  it.effect("a hint that is too late: the guess is refused, the horizon bisected above it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      // The text says 90 days, the exchange serves 80: the guess a minute above 90 days is refused.
      const exchange = model({ horizon: now - 80 * day + 777 }, msg)
      const rule = yield* learn(exchange.probe, refusal(msg), { start: now - 200 * day, end: now }, {})
      expect(rule).toEqual({ servedFrom: now - 80 * day + 777 + 60_000 + 1 })
      // Bisected from the refused guess up, not from the refused start.
      expect(exchange.probes()).toBe(36)
    })
  )

  it.effect("a hint that is too early: the guess and the one below it accepted, bisected below", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      // The text says 90 days, the exchange serves 100: two minutes below the guess is served too.
      const exchange = model({ horizon: now - 100 * day + 4_321 }, msg)
      const rule = yield* learn(exchange.probe, refusal(msg), { start: now - 200 * day, end: now }, {})
      expect(rule).toEqual({ servedFrom: now - 100 * day + 4_321 + 60_000 + 1 })
      // Bisected between the refused start and the accepted probe below the guess, not the end.
      expect(exchange.probes()).toBe(37)
    })
  )

  it.effect("nothing of the window served: the horizon is its end", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const end = now - 100 * day
      const exchange = model({ horizon: now - 90 * day }, "out of range")
      const rule = yield* learn(exchange.probe, refusal("out of range"), { start: end - 10 * day, end }, {})
      expect(rule).toEqual({ servedFrom: end + 1 })
      // The narrow probe at the start and one at the end: no bisection.
      expect(exchange.probes()).toBe(2)
    })
  )

  it.effect("a hint whose guess is past the window's end: not tried, nothing of the window served", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const end = now - 100 * day
      const exchange = model({ horizon: now - 90 * day }, msg)
      const rule = yield* learn(exchange.probe, refusal(msg), { start: end - 10 * day, end }, {})
      expect(rule).toEqual({ servedFrom: end + 1 })
    })
  )

  it.effect("no probe asks for anything before the refused start", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      // The guess 90 days back is below a refused start 50 days back: not tried.
      const late = model({ horizon: now - 40 * day }, msg)
      yield* learn(late.probe, refusal(msg), { start: now - 50 * day, end: now }, {})
      expect(late.earliest()).toBe(now - 50 * day)
      // The guess is accepted, and the minute below it is under the refused start: not tried.
      const start = now - 90 * day - 30_000
      const near = model({ horizon: now - 90 * day }, msg)
      const rule = yield* learn(near.probe, refusal(msg), { start, end: now }, {})
      expect(rule).toEqual({ servedFrom: now - 90 * day + 60_000 + 1 })
      expect(near.earliest()).toBe(start)
    })
  )

  it.effect("a horizon met again: one probe a minute above the refused start, then clipped there", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const old = now - 90 * day
      const exchange = model({ horizon: old + 30_000 }, "out of range")
      const rule = yield* learn(
        exchange.probe,
        refusal("out of range"),
        { start: old, end: now },
        { servedFrom: old + 1, maxWidth: 30 * day }
      )
      expect(rule).toEqual({ servedFrom: old + 60_000 + 1, maxWidth: 30 * day })
      // The narrow probe at the refused start and the one a minute above it.
      expect(exchange.probes()).toBe(2)
    })
  )

  it.effect("a horizon found no later than the one known teaches nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const exchange = model({ horizon: now - 10 * day }, "out of range")
      const again = yield* learn(
        exchange.probe,
        refusal("out of range"),
        { start: now - 40 * day, end: now },
        { servedFrom: now - 5 * day }
      )
      expect(again).toBeUndefined()
    })
  )
})

describe("makeRuleCell", () => {
  it.effect("a refusal under a rule another walk has replaced retries at once; one that teaches nothing fails", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const msg = "time range cannot exceed 30 days"
      const exchange = model({ width: 30 * day }, msg)
      const cell = yield* makeRuleCell({})
      const window = { start: now - 200 * day, end: now }
      const first = yield* cell.get
      expect(yield* cell.refused(first, refusal(msg), window, exchange.probe)).toBe(true)
      const learned = yield* cell.get
      expect(learned).toEqual({ maxWidth: 30 * day })
      const probes = exchange.probes()
      // A second walk refused under the first rule: the new one is there to try, no probes.
      expect(yield* cell.refused(first, refusal(msg), window, exchange.probe)).toBe(true)
      expect(exchange.probes()).toBe(probes)
      // Refused under the rule learned: nothing new, the rule stays.
      expect(yield* cell.refused(learned, refusal(msg), window, exchange.probe)).toBe(false)
      expect(yield* cell.get).toBe(learned)
    })
  )
})

describe("learn: the width", () => {
  it.effect("a width the text does not name is halved from the refused width, a probe a halving", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const exchange = model({ width: 16 * day }, "refused")
      const rule = yield* learn(exchange.probe, refusal("refused"), { start: now - 64 * day, end: now }, {})
      expect(rule).toEqual({ maxWidth: 16 * day })
      // The narrow probe, 32 days refused, 16 accepted.
      expect(exchange.probes()).toBe(3)
    })
  )

  it.effect("a hint no narrower than the refused window is not tried", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const msg = "time range cannot exceed 90 days"
      const exchange = model({ width: 16 * day }, msg)
      const rule = yield* learn(exchange.probe, refusal(msg), { start: now - 64 * day, end: now }, {})
      expect(rule).toEqual({ maxWidth: 16 * day })
      expect(exchange.probes()).toBe(3)
    })
  )

  it.effect("no width accepted teaches nothing; a narrower one than known replaces it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const none = model({ width: 1 }, "refused")
      const window = { start: now - 64, end: now }
      expect(yield* learn(none.probe, refusal("refused"), window, {})).toBeUndefined()
      const narrower = model({ width: 7 * day }, "time range cannot exceed 7 days")
      const rule = yield* learn(
        narrower.probe,
        refusal("time range cannot exceed 7 days"),
        { start: now - 30 * day, end: now },
        { maxWidth: 30 * day }
      )
      expect(rule).toEqual({ maxWidth: 7 * day })
    })
  )
})

describe("the rule on a cursor and a page", () => {
  it("ruleFields keeps only the fields known, with no undefined keys", () => {
    expect(Object.keys(ruleFields({}))).toEqual([])
    expect(Object.keys(ruleFields({ servedFrom: undefined, maxWidth: 3 }))).toEqual(["maxWidth"])
    expect(Object.keys(ruleFields({ servedFrom: 5, maxWidth: undefined }))).toEqual(["servedFrom"])
    expect(ruleFields({ servedFrom: 5, maxWidth: 3 })).toEqual({ servedFrom: 5, maxWidth: 3 })
  })

  it("servedFromOf: only a horizon later than the walk's from clips it", () => {
    expect(servedFromOf({})).toBeUndefined()
    expect(servedFromOf({ from: 100 })).toBeUndefined()
    expect(servedFromOf({ from: 100, servedFrom: 100 })).toBeUndefined()
    expect(servedFromOf({ from: 100, servedFrom: 50 })).toBeUndefined()
    expect(servedFromOf({ from: 100, servedFrom: 101 })).toEqual(DateTime.unsafeMake(101))
    expect(servedFromOf({ servedFrom: 1 })).toEqual(DateTime.unsafeMake(1))
  })

  it("isHistoryLimit: the exchange's refusal only", () => {
    expect(isHistoryLimit(refusal("x"))).toBe(true)
    const limited = new BillsApiError({
      operation: "spotBills",
      reason: "RateLimited",
      code: "429",
      msg: "",
      status: 429
    })
    expect(isHistoryLimit(limited)).toBe(false)
    expect(isHistoryLimit(new BillsIncomplete({ operation: "spotBills", description: "x" }))).toBe(false)
  })
})
