/**
 * The real client stack over the in-memory fake exchange, and a runner that moves the
 * TestClock until a forked program is done, for the resilience and rate-limit tests.
 */
import { createHmac } from "node:crypto"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import {
  BillsApi,
  BillsConfig,
  type BillsConfigInput,
  BillsRateLimiter,
  type RateLimitOptions,
  Signature,
  Signer
} from "../../src/index.js"
import { FakeExchange, type FakeExchangeOptions } from "../../src/testing/index.js"

export interface FakeStackOptions {
  readonly exchange?: FakeExchangeOptions
  readonly config?: BillsConfigInput
  /** `false`: no client-side limit at all. */
  readonly rateLimit?: RateLimitOptions | false
  /**
   * `"sync"` (default): sign with node:crypto in the calling fiber, see {@link syncSigner};
   * `"webcrypto"`: the real `Signer`, for tests whose assertions do not depend on arrival times.
   */
  readonly signer?: "webcrypto" | "sync"
}

const fakeCredentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

/**
 * A signer that computes the same headers as `Signer` but synchronously. The real signer awaits
 * WebCrypto, and the TestClock cannot tell a fiber awaiting a promise from an idle one: it may
 * move the clock on mid-signature, so the request reaches the fake later than its permit, by
 * as much as a clock step. Real signing takes microseconds, well inside the limiter's margin;
 * this signer keeps timing tests exact.
 */
export const syncSigner: Layer.Layer<Signer> = Layer.effect(
  Signer,
  Effect.map(Ref.make(0), (offset) =>
    Signer.of({
      headers: (request) =>
        Effect.gen(function* () {
          const timestamp = String(
            (yield* Effect.clockWith((clock) => clock.currentTimeMillis)) + (yield* Ref.get(offset))
          )
          const { apiKey, passphrase, secret } = FakeExchange.defaultCredentials
          const sign = createHmac("sha256", secret)
            .update(Signature.prehash({ timestamp, ...request }))
            .digest("base64")
          return {
            "ACCESS-KEY": apiKey,
            "ACCESS-SIGN": sign,
            "ACCESS-PASSPHRASE": passphrase,
            "ACCESS-TIMESTAMP": timestamp
          }
        }),
      clockOffset: Ref.get(offset),
      setClockOffset: (millis) => Ref.set(offset, Math.round(millis))
    })
  )
)

/** BillsApi wired to a fresh fake exchange; the FakeExchange handle is in context too. */
export const fakeStack = (options: FakeStackOptions = {}): Layer.Layer<BillsApi | FakeExchange> => {
  return BillsApi.layer.pipe(
    Layer.provideMerge(FakeExchange.layer(options.exchange)),
    Layer.provide(options.signer === "webcrypto" ? Signer.layer(fakeCredentials) : syncSigner),
    Layer.provide(
      options.rateLimit === false ? BillsRateLimiter.layerUnlimited : BillsRateLimiter.layer(options.rateLimit)
    ),
    Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake.exchange.test", ...options.config })))
  )
}

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
