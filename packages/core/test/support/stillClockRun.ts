/**
 * The kit's still-clock guard as a user meets it: a test under `it.effect` that sets the clock
 * once and never moves it again.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as TestClock from "effect/TestClock"

/**
 * The guard fails a wait after 2 s of real time. On a loaded machine (a load average of 12 on
 * 2 cores) such a run took 3.05 s, so the bound leaves slack; without the guard a test hangs
 * into its own timeout instead.
 */
export const failsWithinMillis = 10_000

/** The timeout of a test that meets the guard. */
export const testTimeout = 20_000

/** Runs `effect` with the clock set once and never moved again; its exit, its text and its real duration. */
export const stillClockRun = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.UTC(2025, 6, 1))
    const started = performance.now()
    const exit = yield* Effect.exit(effect)
    const millis = performance.now() - started
    return { failed: Exit.isFailure(exit), said: Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "", millis }
  })
