/**
 * A deadline on a request that forks one fiber, not two. `Effect.timeoutFail` races the request
 * against a sleep: it forks both, and joins the winner's fiber refs back. Here the request runs
 * on the one fiber forked, and the caller waits for whichever comes first, the request's end or
 * the timer; on the real clock the timer is the event loop's own (`setTimeout`), which needs no
 * fiber. Any other clock (the `TestClock`) only tells the time through its `sleep`, which must
 * run on a fiber: there the timer forks one, as the race did. The request's fiber refs are not
 * joined back: the request (`makeSend`'s) sets none that the attempt reads after it.
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"

/** The clock every fiber has unless one is provided: the event loop's. */
let realClock: Clock.Clock | undefined
const isRealClock = (clock: Clock.Clock) => {
  if (realClock === undefined) realClock = Effect.runSync(Effect.clock)
  return clock === realClock
}

/** The longest delay `setTimeout` keeps (a longer one fires at once). */
const maxTimerMillis = 2 ** 31 - 1

/** Calls `fire` once `duration` has passed on `clock`; the effect gives the timer's cancel. */
const arm = (clock: Clock.Clock, duration: Duration.Duration, fire: () => void): Effect.Effect<() => void> => {
  const millis = Duration.toMillis(duration)
  if (isRealClock(clock) && millis <= maxTimerMillis) {
    return Effect.sync(() => {
      const timer = setTimeout(fire, millis)
      return () => clearTimeout(timer)
    })
  }
  return Effect.map(
    Effect.fork(Effect.interruptible(Effect.zipRight(clock.sleep(duration), Effect.sync(fire)))),
    (timer) => () => {
      timer.unsafeInterruptAsFork(timer.id())
    }
  )
}

/**
 * Fails with `onTimeout()` unless `self` ends within `duration` (of the fiber's clock); then
 * `self` is interrupted, and the failure comes once it has stopped. Interrupting the caller
 * interrupts `self` and disarms the timer.
 */
export const timeoutFail =
  <E1>(options: { readonly duration: Duration.DurationInput; readonly onTimeout: () => E1 }) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E1, R> =>
    Effect.clockWith((clock) =>
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
          const disarm = yield* arm(clock, Duration.decode(options.duration), () => settle("timeout"))
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
    )
