/**
 * What keeps a user's test from hanging on a clock nobody moves. Under `it.effect` the clock is
 * a `TestClock`: time stands still until the test moves it, so a request that waits for the
 * kit's rate limit or latency, or a call that pauses before a retry, waits for good, and the
 * test runs into its timeout with no hint.
 * The guard watches such a wait on the live clock and, when the test's clock has not moved for
 * a while of real time, ends it with a message that says what to do.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as TestServices from "effect/TestServices"

/**
 * Real time a wait may see the test's clock stand still before it fails: well under vitest's
 * default test timeout of 5 s, well over the time a test that moves the clock takes between
 * two moves.
 */
export const stillFor = Duration.seconds(2)

/**
 * What every guard's message says: which kit layer, what happened, then what this wait is for and
 * what to do.
 */
export const stillMessage = (kit: string, subject: string, waitsFor: string, orElse: string): string =>
  `${kit}: ${subject} has waited 2 s of real time on a clock that does not move (under it.effect the ` +
  `clock is a TestClock, and time passes only when the test moves it). It waits for ${waitsFor}. Fork the work and move the clock until it is done (TestClock.adjust in a loop, see "Testing your code" in the docs), ` +
  `run the test with it.live, or ${orElse}.`

/**
 * Runs `effect`; should the clock not move for `stillFor` of real time meanwhile, dies with
 * `message`, read then (so it can tell where the wait stood).
 */
export const failWhenStill =
  (message: Effect.Effect<string>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    // A live clock always moves, so the watch ends only a wait on a clock that stands still.
    const watch: Effect.Effect<never> = Effect.gen(function* () {
      while (true) {
        const before = yield* Clock.currentTimeMillis
        yield* TestServices.provideLive(Effect.sleep(stillFor))
        if ((yield* Clock.currentTimeMillis) === before) return yield* Effect.dieMessage(yield* message)
      }
    })
    return Effect.raceFirst(effect, watch)
  }
