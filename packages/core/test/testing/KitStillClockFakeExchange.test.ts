/**
 * The kit's `FakeExchange.layer` under a user's own client stack (`BillsApi.layer` with their
 * own signer, limiter and config), with a clock nobody moves: a request that waits for the fake's
 * latency, or for the user's requestTimeout after a Hang fault, fails within a few seconds of real
 * time with a message saying what it waits for and what to do, instead of hanging until vitest's
 * timeout. With the clock moved, the same stack ends its walk and the guard never fires.
 */
import { BillsApi, BillsConfig, BillsRateLimiter, Signer } from "@account-bills/core"
import { FakeExchange, type FakeExchangeOptions, FakeFault } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { failsWithinMillis, stillClockRun, testTimeout } from "../support/stillClockRun.js"

const generate = { seed: 5, spot: 300, funding: 0 }

/** A user's own stack over the kit's exchange, as the configuration docs show it. */
const userStack = (exchange: FakeExchangeOptions) => {
  const { apiKey, secret, passphrase } = FakeExchange.defaultCredentials
  return BillsApi.layer.pipe(
    Layer.provideMerge(FakeExchange.layer(exchange)),
    Layer.provide(
      Signer.layer({
        apiKey: Redacted.make(apiKey),
        secret: Redacted.make(secret),
        passphrase: Redacted.make(passphrase)
      })
    ),
    Layer.provide(BillsRateLimiter.layer()),
    Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake-exchange.test", maxAttempts: 1 })))
  )
}

const walk = Effect.flatMap(BillsApi, (api) => Stream.runCollect(api.streamSpotBills()))

describe.concurrent("FakeExchange.layer under a user's own client, with a clock nobody moves", () => {
  it.effect(
    "a request waiting for the fake's latency fails within seconds, naming the latency",
    () =>
      Effect.gen(function* () {
        const { failed, said, millis } = yield* stillClockRun(walk)
        expect(failed).toBe(true)
        expect(said).toContain("FakeExchange: a request has waited 2 s of real time on a clock that does not move")
        expect(said).toContain("the fake exchange's latency (200 ms)")
        expect(said).toContain("TestClock.adjust")
        expect(millis).toBeLessThan(failsWithinMillis)
      }).pipe(Effect.provide(userStack({ generate, latency: { millis: 200 } }))),
    testTimeout
  )

  it.effect(
    "a Hang fault's wait for the user's requestTimeout fails within seconds, saying so",
    () =>
      Effect.gen(function* () {
        const { failed, said, millis } = yield* stillClockRun(walk)
        expect(failed).toBe(true)
        expect(said).toContain("FakeExchange: a request has waited 2 s of real time on a clock that does not move")
        expect(said).toContain("your client's requestTimeout to end an answer that never comes (a Hang fault)")
        expect(said).not.toContain("latency (")
        expect(millis).toBeLessThan(failsWithinMillis)
      }).pipe(Effect.provide(userStack({ generate, faults: { scripted: [{ nth: 1, fault: FakeFault.Hang() }] } }))),
    testTimeout
  )

  it.effect(
    "with the clock moved, the walk over a latency ends with every bill, the guard never firing",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.UTC(2025, 6, 1))
        const fiber = yield* Effect.fork(walk)
        while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust("50 millis")
        const bills = yield* Fiber.join(fiber)
        expect(Chunk.size(bills)).toBe(generate.spot)
      }).pipe(Effect.provide(userStack({ generate, latency: { millis: 200 } }))),
    testTimeout
  )
})
