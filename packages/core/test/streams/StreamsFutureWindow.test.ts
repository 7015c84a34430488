/**
 * A window entirely in the future holds no bill yet, and a stream asked for one says so, as it
 * does for `from` after `to`, instead of ending quietly with nothing (a test that forgot
 * `TestClock.setTime` reads 1970 as now and would silently get 0 bills).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { FakeExchange } from "../../src/testing/index.js"
import { fakeStack } from "../support/fakeStack.js"

const now = Date.UTC(2025, 6, 1)
const tomorrow = now + 86_400_000

describe("a window entirely in the future", () => {
  it.effect("fails both streams with InvalidParams on from, and sends nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const api = yield* BillsApi
      for (const stream of [api.streamSpotBills({ from: tomorrow }), api.streamFundingBills({ from: tomorrow })]) {
        const exit = yield* Effect.exit(Stream.runDrain(stream))
        const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(error?._tag).toBe("InvalidParams")
        expect(error?._tag === "InvalidParams" ? error.field : undefined).toBe("from")
        expect(error?.message).toContain("future")
      }
      const exchange = yield* FakeExchange
      expect(yield* exchange.requests).toHaveLength(0)
      // A window that starts now is empty, not in the future.
      expect(yield* Stream.runCollect(api.streamSpotBills({ from: now }))).toHaveLength(0)
      // Nor a page: the funding walk is done before it starts.
      expect(yield* Stream.runCollect(api.streamFundingPages({ from: now }))).toHaveLength(0)
      expect(yield* exchange.requests).toHaveLength(0)
    }).pipe(Effect.provide(fakeStack({ exchange: { generate: { spot: 10, funding: 10 } } })))
  )
})
