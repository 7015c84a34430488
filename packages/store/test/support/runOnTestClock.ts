import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"

/**
 * Runs `effect` while moving the TestClock, a step per turn of the event loop so that the
 * database's I/O goes on in between, until it is done.
 */
export const runOnTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    while ((yield* Fiber.poll(fiber))._tag === "None") {
      yield* TestClock.adjust("100 millis")
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return yield* Fiber.join(fiber)
  })
