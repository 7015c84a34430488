/**
 * A user's test that builds the kit with its limiter and never moves the clock: it fails within
 * seconds of real time (the guard's 2 s) with a message saying what to do, on v2 and v3, instead
 * of hanging until vitest's timeout. Written as a user writes it: the public kit, `it.effect`, one `setTime`.
 */
import { BillsApi } from "@account-bills/core"
import { TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

// The guard fails a wait after 2 s of real time. On a loaded machine (a load average of 12 on
// 2 cores) such a run took 3.05 s, so the bound leaves slack; without the guard the test hangs
// into its own timeout instead.
const failsWithinMillis = 10_000

for (const [apiVersion, kind] of [
  ["v2", "spot"],
  ["v3", "spot"],
  ["v2", "funding"]
] as const) {
  describe(`the kit with its limiter and a clock nobody moves, ${apiVersion}`, () => {
    it.effect(
      `a ${kind} walk longer than one window fails within seconds of real time, saying to move the clock`,
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.UTC(2025, 6, 1))
          const api = yield* BillsApi
          const started = performance.now()
          const stream = kind === "spot" ? api.streamSpotBills() : api.streamFundingBills()
          const exit = yield* Effect.exit(Stream.runCollect(stream))
          const took = performance.now() - started
          expect(Exit.isFailure(exit)).toBe(true)
          const said = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
          expect(said).toContain("TestClock.adjust")
          expect(took).toBeLessThan(failsWithinMillis)
        }).pipe(
          Effect.provide(
            TestBillsApi.layerStack({
              apiVersion,
              exchange: { generate: kind === "spot" ? { spot: 2_000, funding: 0 } : { spot: 0, funding: 2_000 } },
              rateLimit: {}
            })
          )
        ),
      20_000
    )
  })
}
