import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { BillsApi, BillsApiError, BillsConfig, BillsTransportError } from "../../src/index.js"
import { retryDelay } from "../../src/internal/retry.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { fakeStack, runOnTestClock, timed } from "../support/fakeStack.js"
import { envelope, makeStub } from "../support/stubHttp.js"

const transientFaults: ReadonlyArray<readonly [string, FakeFault]> = [
  ["HTTP 500", FakeFault.Status({ status: 500 })],
  ["HTTP 502", FakeFault.Status({ status: 502 })],
  ["HTTP 503", FakeFault.Status({ status: 503 })],
  ["HTTP 504", FakeFault.Status({ status: 504 })],
  ["HTTP 429", FakeFault.Status({ status: 429 })],
  ["connection reset", FakeFault.Reset()],
  ["HTML gateway page (502)", FakeFault.Html({ status: 502 })],
  ["HTML page with HTTP 200", FakeFault.Html({ status: 200 })],
  ["truncated JSON", FakeFault.Truncated()],
  ["maintenance code 40200 on HTTP 200", FakeFault.Code({ status: 200, code: "40200", msg: "maintenance" })],
  ["rate-limit code 429 on HTTP 200", FakeFault.Code({ status: 200, code: "429", msg: "slow down" })],
  ["no answer (timeout)", FakeFault.Hang()]
]

const stack = fakeStack({ exchange: { generate: { seed: 2, funding: 30, spot: 30 } } })

describe("retries", () => {
  for (const [name, fault] of transientFaults) {
    it.effect(`${name}: retried, signed afresh, and the call succeeds`, () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        yield* exchange.failNext(fault, { count: 2 })
        const exit = yield* runOnTestClock(api.spotBills({ limit: 100 }))
        expect(Exit.isSuccess(exit) && exit.value.length).toBe(30)
        const log = yield* exchange.requests
        expect(log.map((r) => r.outcome._tag)).toEqual(["Faulted", "Faulted", "Answered"])
        // A fresh timestamp per attempt: each one is the clock at its own send.
        expect(log.map((r) => r.timestamp)).toEqual(log.map((r) => String(r.arrivalMillis)))
        expect(new Set(log.map((r) => r.timestamp)).size).toBe(3)
      }).pipe(Effect.provide(stack))
    )
  }

  it.effect("a permanent fault fails with the typed error after maxAttempts, in bounded time", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.setPermanentFault(FakeFault.Status({ status: 503 }))
      const exit = yield* runOnTestClock(timed(Effect.flip(api.fundingBills())))
      const { millis, value: error } = yield* exit
      expect(error).toBeInstanceOf(BillsApiError)
      expect(error).toMatchObject({ reason: "ServerError", status: 503, code: "503" })
      expect((yield* exchange.stats).fundingBills.requests).toBe(5)
      // Four waits of at most 250, 500, 1000 and 2000 ms; at least half of each.
      expect(millis).toBeGreaterThanOrEqual(1875)
      expect(millis).toBeLessThanOrEqual(3750)
    }).pipe(Effect.provide(stack))
  )

  it.effect("a permanent hang fails with a Timeout after maxAttempts × the request timeout", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.setPermanentFault(FakeFault.Hang())
      const exit = yield* runOnTestClock(timed(Effect.flip(api.spotBills())), Duration.seconds(1))
      const { millis, value: error } = yield* exit
      expect(error).toBeInstanceOf(BillsTransportError)
      expect(error).toMatchObject({ reason: "Timeout", operation: "spotBills" })
      expect(error.message).toContain("2s")
      expect((yield* exchange.stats).spotBills.requests).toBe(3)
      expect(millis).toBeGreaterThanOrEqual(3 * 2000)
      expect(millis).toBeLessThanOrEqual(3 * 2000 + 200 + 400)
    }).pipe(
      Effect.provide(
        fakeStack({
          config: { requestTimeout: Duration.seconds(2), maxAttempts: 3, retryBaseDelay: Duration.millis(200) }
        })
      )
    )
  )

  it.effect("the caller gets the error of the last attempt", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.injectFaults([
        { nth: 1, fault: FakeFault.Hang() },
        { nth: 2, fault: FakeFault.Status({ status: 503 }) },
        { nth: 3, fault: FakeFault.Reset() }
      ])
      const error = yield* Effect.flatten(runOnTestClock(Effect.flip(api.spotBills()), Duration.seconds(1)))
      expect(error).toMatchObject({ _tag: "BillsTransportError", reason: "Transport" })
    }).pipe(Effect.provide(fakeStack({ config: { maxAttempts: 3 } })))
  )

  it.effect("maxAttempts 1 turns retries off", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.failNext(FakeFault.Status({ status: 502 }))
      const error = yield* Effect.flip(api.spotBills())
      expect(error).toMatchObject({ _tag: "BillsApiError", reason: "ServerError" })
      expect((yield* exchange.stats).spotBills.requests).toBe(1)
    }).pipe(Effect.provide(fakeStack({ config: { maxAttempts: 1 } })))
  )

  it.effect("authentication errors are never retried (wrong secret: 40009)", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const error = yield* Effect.flip(api.spotBills())
      expect(error).toMatchObject({ _tag: "BillsApiError", reason: "Authentication", code: "40009", status: 401 })
      expect((yield* exchange.stats).spotBills.requests).toBe(1)
    }).pipe(
      Effect.provide(
        fakeStack({
          exchange: { credentials: { ...FakeExchange.defaultCredentials, secret: "another-secret" } }
        })
      )
    )
  )
})

describe("Retry-After", () => {
  it.effect("a retry waits at least as long as Retry-After asks", () =>
    Effect.gen(function* () {
      const stub = makeStub([
        { status: 429, body: envelope(null, "429", "Too Many Requests"), headers: { "retry-after": "3" } },
        { status: 200, body: envelope([]) }
      ])
      const api = yield* Effect.provide(BillsApi, stub.layer)
      yield* Effect.flatten(runOnTestClock(api.spotBills()))
      const [first, second] = stub.requests.map((r) => Number(r.headers["access-timestamp"]))
      expect((second ?? 0) - (first ?? 0)).toBe(3000)
    })
  )

  it.effect("Retry-After as an HTTP date", () =>
    Effect.gen(function* () {
      const stub = makeStub([
        { status: 503, body: "<html>busy</html>", headers: { "retry-after": new Date(5000).toUTCString() } },
        { status: 200, body: envelope([]) }
      ])
      const api = yield* Effect.provide(BillsApi, stub.layer)
      yield* Effect.flatten(runOnTestClock(api.spotBills()))
      expect(stub.requests.map((r) => r.headers["access-timestamp"])).toEqual(["0", "5000"])
    })
  )

  it.effect("a Retry-After beyond maxRetryDelay ends the retries at once, and the error says how long", () =>
    Effect.gen(function* () {
      const stub = makeStub([
        { status: 503, body: envelope(null, "40200", "maintenance"), headers: { "retry-after": "3600" } },
        { status: 200, body: envelope([]) }
      ])
      const api = yield* Effect.provide(BillsApi, stub.layer)
      const error = yield* Effect.flip(api.spotBills())
      expect(error).toMatchObject({ _tag: "BillsApiError", reason: "Maintenance", retryAfterMillis: 3_600_000 })
      expect(stub.requests).toHaveLength(1)
    })
  )
})

describe("backoff", () => {
  const settings = { maxAttempts: 10, retryBaseDelay: Duration.millis(100), maxRetryDelay: Duration.seconds(1) }
  const transport = new BillsTransportError({ operation: "spotBills", reason: "Transport", description: "reset" })

  it.effect("doubles per retry with equal jitter, capped at maxRetryDelay", () =>
    Effect.gen(function* () {
      for (let retry = 1; retry <= 8; retry++) {
        const ceiling = Math.min(1000, 100 * 2 ** (retry - 1))
        const delays = new Set<number>()
        for (let i = 0; i < 50; i++) {
          const delay = Duration.toMillis(Option.getOrThrow(yield* retryDelay(retry, transport, settings)))
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2)
          expect(delay).toBeLessThanOrEqual(ceiling)
          delays.add(delay)
        }
        // Jitter: fifty draws do not all agree, so fibers that failed together spread out.
        expect(delays.size).toBeGreaterThan(10)
      }
    }).pipe(Effect.withRandom(Random.make("backoff")))
  )

  it("settings come from BillsConfig and are validated", () => {
    const config = Effect.runSync(
      BillsConfig.make({ maxAttempts: 2, retryBaseDelay: "1 second", maxRetryDelay: "5 seconds", requestTimeout: 3000 })
    )
    expect(config).toMatchObject({ maxAttempts: 2 })
    expect(Duration.toMillis(config.retryBaseDelay)).toBe(1000)
    expect(Duration.toMillis(config.maxRetryDelay)).toBe(5000)
    expect(Duration.toMillis(config.requestTimeout)).toBe(3000)
    expect(Effect.runSyncExit(BillsConfig.make({ maxAttempts: 0 }))._tag).toBe("Failure")
    expect(Effect.runSyncExit(BillsConfig.make({ requestTimeout: 0 }))._tag).toBe("Failure")
  })
})
