/**
 * A user's test that builds the kit with its limiter and never moves the clock: it fails within
 * seconds of real time (the guard's 2 s) with a message saying what to do, on v2 and v3, instead
 * of hanging until vitest's timeout. Written as a user writes it: the public kit, `it.effect`, one `setTime`.
 */
import { BillsApi } from "@account-bills/core"
import { TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { failsWithinMillis, stillClockRun, testTimeout } from "../support/stillClockRun.js"

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
          const api = yield* BillsApi
          const stream = kind === "spot" ? api.streamSpotBills() : api.streamFundingBills()
          const { failed, said, millis } = yield* stillClockRun(Stream.runCollect(stream))
          expect(failed).toBe(true)
          expect(said).toContain("TestClock.adjust")
          expect(millis).toBeLessThan(failsWithinMillis)
        }).pipe(
          Effect.provide(
            TestBillsApi.layerStack({
              apiVersion,
              exchange: { generate: kind === "spot" ? { spot: 2_000, funding: 0 } : { spot: 0, funding: 2_000 } },
              rateLimit: {}
            })
          )
        ),
      testTimeout
    )
  })
}
