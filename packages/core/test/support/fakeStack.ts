/**
 * The real client stack over the in-memory fake exchange, and a runner that moves the
 * TestClock until a forked program is done, for the resilience and rate-limit tests.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import type { ApiVersion, BillsApi } from "../../src/index.js"
import { TestBillsApi, type FakeExchange } from "../../src/testing/index.js"

/** Both interface versions, for tests that must hold on each. */
export const apiVersions: ReadonlyArray<ApiVersion> = ["v2", "v3"]

/**
 * BillsApi wired to a fresh fake exchange, both speaking `apiVersion` (default `options.apiVersion`,
 * else v2); the FakeExchange handle is in context too. Both sides limit to 10 per second unless
 * told otherwise (by `rateLimit` or the fake's own `rateLimit`).
 */
export const fakeStack = (
  options: TestBillsApi.StackOptions = {},
  apiVersion: ApiVersion | undefined = options.apiVersion
): Layer.Layer<BillsApi | FakeExchange> =>
  TestBillsApi.layerStack({
    ...options,
    apiVersion,
    rateLimit: options.rateLimit ?? (options.exchange?.rateLimit === undefined ? {} : undefined)
  })

/**
 * Forks `effect` and moves the TestClock in `step`s until it is done, then returns its exit.
 * The program's own time is read inside it; the clock here may run up to one step further.
 */
export const runOnTestClock = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  step: Duration.DurationInput = Duration.millis(250)
) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust(step)
    return yield* Fiber.await(fiber)
  })

/** Runs `effect` and returns its result with the TestClock time it took, in ms. */
export const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const value = yield* effect
    const end = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    return { value, millis: end - start }
  })

/**
 * The largest number of arrivals in any window of `windowMillis`, counted the way the fake's
 * strict limit counts them: arrivals in `(t - windowMillis, t]`.
 */
export const busiestWindow = (arrivals: ReadonlyArray<number>, windowMillis: number): number => {
  const sorted = [...arrivals].sort((a, b) => a - b)
  let busiest = 0
  let first = 0
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[first] as number) <= (sorted[last] as number) - windowMillis) first++
    busiest = Math.max(busiest, last - first + 1)
  }
  return busiest
}
