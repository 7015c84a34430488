/**
 * `account_bills_fleet_budget_waits_total` counts the grants that had to wait: one per grant
 * that waited, however long and however many times it asked, and none for a grant given at
 * once. In the process's budget (under the TestClock) and in Redis's (the first grant on an
 * address waits out the new state's quiet window).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as TestClock from "effect/TestClock"
import { AddressBudget, FleetMetrics } from "../src/index.js"
import { redisBudget } from "./support/redisBudget.js"
import { redisUrl } from "./support/services.js"

const waits = Metric.value(FleetMetrics.forOperation(FleetMetrics.budgetWaits, "spotBills")).pipe(
  Effect.map(({ count }) => count)
)

/** How many waits `effect` counted. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* waits
    yield* effect
    return (yield* waits) - before
  })

describe("budget_waits of AddressBudget.layerMemory", () => {
  it.effect("none for a grant given at once, one for a grant that waited", () =>
    Effect.gen(function* () {
      const budget = yield* AddressBudget
      const grant = budget.withGrant("spotBills")(Effect.void)
      expect(yield* counted(grant)).toBe(0)
      yield* TestClock.adjust("1 second")
      // Limit 1: the second of two waits a window.
      const both = yield* counted(
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(Effect.all([grant, grant], { concurrency: "unbounded" }))
          yield* TestClock.adjust("1 second")
          yield* Fiber.join(fiber)
        })
      )
      expect(both).toBe(1)
    }).pipe(Effect.provide(AddressBudget.layerMemory({ limit: 1, window: "1 second", margin: 0 })))
  )
})

describe.skipIf(redisUrl === undefined)("budget_waits of AddressBudget.layerRedis", () => {
  it.live("one for a grant that asked many times through the quiet window, none for one given at once", () =>
    Effect.gen(function* () {
      const address = `waits-${process.pid}-${Date.now()}`
      const budget = yield* redisBudget(redisUrl ?? "", { limit: 1, window: "1 second", address })
      const grant = budget.withGrant("spotBills")(Effect.void)
      // A new state grants nothing for a window; the grant asks again every 50 ms or less.
      expect(yield* counted(grant)).toBe(1)
      yield* Effect.sleep("1100 millis")
      expect(yield* counted(grant)).toBe(0)
    }).pipe(Effect.scoped)
  )
})
