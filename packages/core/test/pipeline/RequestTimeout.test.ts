/**
 * The request timeout forks one fiber per request, not two (issue 38, section 3, sixth round):
 * `Effect.timeoutFail` forked the request and its timer and joined the winner's fiber refs;
 * on the real clock the timer is now the event loop's. Its semantics (the typed error after the
 * same TestClock time, the request interrupted, no timer left behind) hold in the resilience
 * tests; here, the fibers counted, and the deadline to the millisecond.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import { BillsApi, BillsTransportError } from "../../src/index.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { timeoutFail } from "../../src/internal/requestTimeout.js"
import { fakeStack } from "../support/fakeStack.js"

/** Counts the fibers started under it. */
class Starts extends Supervisor.AbstractSupervisor<number> {
  count = 0
  get value() {
    return Effect.sync(() => this.count)
  }
  override onStart() {
    this.count++
  }
}

describe("the request timeout", () => {
  it.live("on the real clock, a request that answers forks one fiber for its timeout, not two", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      // Once unmeasured: the limiter learns its rule on the first answer.
      yield* api.fundingBills()
      const starts = new Starts()
      const bills = yield* Effect.supervised(api.fundingBills(), starts)
      expect(bills.total).toBe(0)
      // The call forks three: the request's and two outside the timeout. With
      // `Effect.timeoutFail`, the timer's as well: 4.
      expect(starts.count).toBeLessThanOrEqual(3)
    }).pipe(Effect.provide(fakeStack()))
  )

  it.live("on the real clock, a hanging request times out, is interrupted, and leaves no timer", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length
      const before = timers()
      yield* exchange.failNext(FakeFault.Hang())
      const live = yield* Supervisor.track
      const error = yield* Effect.flip(Effect.supervised(api.spotBills(), live))
      expect(error).toBeInstanceOf(BillsTransportError)
      expect(error).toMatchObject({ reason: "Timeout", operation: "spotBills" })
      expect(error.message).toContain("50ms")
      // The request's fiber has stopped (interrupted at the deadline), and its timer is gone.
      expect(yield* live.value).toEqual([])
      expect(timers()).toBeLessThanOrEqual(before)
    }).pipe(Effect.provide(fakeStack({ config: { requestTimeout: Duration.millis(50), maxAttempts: 1 } })))
  )

  it.effect("fails with a Timeout at the request timeout to the millisecond, and not before", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.failNext(FakeFault.Hang())
      const call = yield* Effect.fork(Effect.flip(api.spotBills()))
      yield* TestClock.adjust(Duration.millis(1_999))
      expect(call.unsafePoll()).toBeNull()
      yield* TestClock.adjust(Duration.millis(1))
      const error = yield* Fiber.join(call)
      expect(error).toBeInstanceOf(BillsTransportError)
      expect(error).toMatchObject({ reason: "Timeout", operation: "spotBills" })
      expect((yield* exchange.stats).spotBills.requests).toBe(1)
    }).pipe(Effect.provide(fakeStack({ config: { requestTimeout: Duration.seconds(2), maxAttempts: 1 } })))
  )

  // The attempt's own fibers end after it and would stop the request anyway: the deadline itself
  // must stop it before its failure comes, on either clock.
  const stoppedBeforeTheFailure = Effect.gen(function* () {
    let stopped = false
    const error = yield* Effect.never.pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          stopped = true
        })
      ),
      timeoutFail({ duration: Duration.millis(20), onTimeout: () => "late" as const }),
      Effect.flip
    )
    expect(error).toBe("late")
    expect(stopped).toBe(true)
  })
  it.live("on the real clock, the deadline stops the request before it fails", () => stoppedBeforeTheFailure)
  it.effect("on the TestClock, the deadline stops the request before it fails", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(stoppedBeforeTheFailure)
      yield* TestClock.adjust(Duration.millis(20))
      yield* Fiber.join(fiber)
    })
  )

  it.effect("an answer before the deadline is the answer, and the caller's interruption stops the request", () =>
    Effect.gen(function* () {
      const answer = yield* Effect.fork(
        Effect.as(Effect.sleep(Duration.millis(10)), "answer").pipe(
          timeoutFail({ duration: Duration.millis(20), onTimeout: () => "late" as const })
        )
      )
      yield* TestClock.adjust(Duration.millis(10))
      expect(yield* Fiber.join(answer)).toBe("answer")
      // The caller interrupted while it waits, and going on in a region that interruption does
      // not end (as a permit's release does): the request and the timer stop before it goes on,
      // not only when the caller's fiber ends.
      let stopped = false
      let seen: unknown
      const live = yield* Supervisor.track
      const caller = yield* Effect.fork(
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            const exit = yield* Effect.exit(
              restore(
                Effect.never.pipe(
                  Effect.onInterrupt(() =>
                    Effect.sync(() => {
                      stopped = true
                    })
                  ),
                  timeoutFail({ duration: Duration.seconds(1), onTimeout: () => "late" as const }),
                  Effect.supervised(live)
                )
              )
            )
            seen = { interrupted: Exit.isInterrupted(exit), stopped, running: (yield* live.value).length }
          })
        )
      )
      yield* TestClock.adjust(Duration.millis(1))
      yield* Fiber.interrupt(caller)
      expect(seen).toEqual({ interrupted: true, stopped: true, running: 0 })
    })
  )
})
