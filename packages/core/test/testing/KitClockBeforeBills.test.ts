/**
 * The kit's check of a clock set before every bill holds whatever the test calls first: a
 * single page (`api.spotBills()`, no time bound) before the stream does not switch it off, and
 * the stream fails with the message that says to set the clock after the bills, rather than end
 * with no bill.
 */
import { BillsApi } from "@account-bills/core"
import { TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

describe("a clock set before every bill", () => {
  it.effect("a first call that is not a stream's leaves the check on: the stream fails, saying what to do", () =>
    Effect.gen(function* () {
      // Before the generated history (2025-01-01 on), and not the epoch the kit would move.
      yield* TestClock.setTime(Date.UTC(2024, 0, 1))
      const api = yield* BillsApi
      yield* api.spotBills({ limit: 5 })
      yield* api.fundingBills({ pageSize: 5 })
      const exit = yield* Effect.exit(Stream.runCollect(api.streamSpotBills()))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toContain("before the first spot bill")
    }).pipe(Effect.provide(TestBillsApi.layerStack({ exchange: { generate: { seed: 4, funding: 30, spot: 30 } } })))
  )
})
