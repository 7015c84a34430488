/**
 * A deadline on a request that forks one fiber, not two. `Effect.timeoutFail` races the request
 * against a sleep: it forks both, and joins the winner's fiber refs back. Here the request runs
 * on the one fiber forked, and the caller waits for whichever comes first, the request's end or
 * the timer (`ClockTimer.arm`: the event loop's on the real clock, a forked sleep on the
 * `TestClock`). The request's fiber refs are not joined back: the request (`makeSend`'s) sets
 * none that the attempt reads after it.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as ClockTimer from "../ClockTimer.js"

/**
 * Fails with `onTimeout()` unless `self` ends within `duration` (of the fiber's clock); then
 * `self` is interrupted, and the failure comes once it has stopped. Interrupting the caller
 * interrupts `self` and disarms the timer.
 */
export const timeoutFail =
  <E1>(options: { readonly duration: Duration.DurationInput; readonly onTimeout: () => E1 }) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E1, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const request = yield* Effect.fork(restore(self))
        // The first of the request's end and the timer settles it; the caller may not be
        // waiting yet when it does.
        let settled: Exit.Exit<A, E> | "timeout" | undefined
        let wake: ((outcome: Exit.Exit<A, E> | "timeout") => void) | undefined
        const settle = (outcome: Exit.Exit<A, E> | "timeout") => {
          if (settled !== undefined) return
          settled = outcome
          wake?.(outcome)
        }
        const ended = (exit: Exit.Exit<A, E>) => settle(exit)
        request.addObserver(ended)
        const disarm = yield* ClockTimer.arm(options.duration, () => settle("timeout"))
        const outcome = yield* restore(
          Effect.async<Exit.Exit<A, E> | "timeout">((resume) => {
            if (settled !== undefined) resume(Effect.succeed(settled))
            else wake = (outcome) => resume(Effect.succeed(outcome))
          })
        ).pipe(
          // The caller interrupted (before the wait began, too): the request goes with it.
          Effect.onInterrupt(() =>
            Effect.suspend(() => {
              disarm()
              request.removeObserver(ended)
              return Fiber.interrupt(request)
            })
          )
        )
        disarm()
        request.removeObserver(ended)
        if (outcome === "timeout") {
          yield* Fiber.interrupt(request)
          return yield* Effect.fail(options.onTimeout())
        }
        return yield* outcome
      })
    )
