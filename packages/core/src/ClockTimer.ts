/**
 * A callback after a time on the fiber's clock, without a fiber where it can. Effect's own
 * timers are fibers asleep (`Effect.sleep` raced, delayed, forked), and a fork copies the
 * fiber's refs: a fleet that arms a timer per request and per lease, and almost never sees one
 * fire, paid a fiber for each. On the real clock (the one every fiber has unless another is
 * provided) the timer here is the event loop's own `setTimeout`. Any other clock (the
 * `TestClock`) tells the time only through its `sleep`, which must run on a fiber: there it
 * forks one, as `Effect.sleep` would.
 *
 * @since 0.2.0
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** The clock every fiber has unless one is provided: the event loop's. */
let realClock: Clock.Clock | undefined
const isRealClock = (clock: Clock.Clock) => {
  if (realClock === undefined) realClock = Effect.runSync(Effect.clock)
  return clock === realClock
}

/** The longest delay `setTimeout` keeps (a longer one fires at once). */
const maxTimerMillis = 2 ** 31 - 1

/**
 * Calls `fire` once `duration` has passed on the fiber's clock; the effect gives the timer's
 * cancel, after which `fire` is not called (a fiber's timer stops asynchronously: a `fire` that
 * must not run late checks its own state). `fire` runs outside any fiber: it may only change
 * state or resume one.
 *
 * @since 0.2.0
 * @category timers
 */
export const arm = (duration: Duration.DurationInput, fire: () => void): Effect.Effect<() => void> =>
  Effect.clockWith((clock) => {
    const decoded = Duration.decode(duration)
    const millis = Duration.toMillis(decoded)
    if (isRealClock(clock) && millis <= maxTimerMillis) {
      return Effect.sync(() => {
        const timer = setTimeout(fire, millis)
        return () => clearTimeout(timer)
      })
    }
    return Effect.map(
      Effect.fork(Effect.interruptible(Effect.zipRight(clock.sleep(decoded), Effect.sync(fire)))),
      (timer) => () => {
        timer.unsafeInterruptAsFork(timer.id())
      }
    )
  })
