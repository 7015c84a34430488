/**
 * A user's test that moves the clock once, while the walk waits on the kit's limiter, and then
 * never again: the guard still notices that the clock stands still and fails the walk within
 * seconds of real time with its hint. A guard that read the clock once, before its loop, would
 * see "moved" on every look from then on and let the walk wait for good.
 */
import { BillsApi } from "@account-bills/core"
import { TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import { failsWithinMillis, stillClockRun, testTimeout } from "../support/stillClockRun.js"

/**
 * The guard looks twice here (the first look sees the move), so twice the time of one look; on a
 * machine with a load of 20 on 2 cores one run took 9.1 s.
 */
const movedOnceWithinMillis = 2 * failsWithinMillis

describe("the kit with its limiter and a clock moved once, then left", () => {
  it.effect(
    "a walk waiting on the limiter fails within seconds of real time, saying to move the clock",
    () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const { failed, said, millis } = yield* stillClockRun(
          Effect.gen(function* () {
            const walk = yield* Effect.fork(Stream.runCollect(api.streamSpotBills()))
            // Until the walk waits on the test's clock (the limiter's window is full), then one
            // move, too short to end that wait.
            while (Chunk.isEmpty(yield* TestClock.sleeps())) {
              yield* TestServices.provideLive(Effect.sleep("5 millis"))
            }
            yield* TestClock.adjust("1 millis")
            // Bounded on the live clock: a guard that never fires fails this test here, not
            // at vitest's timeout.
            return yield* Fiber.join(walk).pipe(
              Effect.timeoutFail({
                duration: movedOnceWithinMillis,
                onTimeout: () => new Error(`the walk still waited after ${movedOnceWithinMillis} ms of real time`)
              }),
              TestServices.provideLive
            )
          })
        )
        expect(failed).toBe(true)
        expect(said).toContain("TestClock.adjust")
        expect(said).not.toContain("still waited after")
        expect(millis).toBeLessThan(movedOnceWithinMillis)
      }).pipe(
        Effect.provide(TestBillsApi.layerStack({ exchange: { generate: { spot: 2_000, funding: 0 } }, rateLimit: {} }))
      ),
    testTimeout + movedOnceWithinMillis
  )
})
