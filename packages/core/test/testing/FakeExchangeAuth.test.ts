import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import {
  FakeExchange,
  type FakeExchangeService,
  type SignedRequestOptions,
  signedRequest
} from "../../src/testing/index.js"

const answer = (exchange: FakeExchangeService, options: SignedRequestOptions) =>
  Effect.gen(function* () {
    const response = yield* exchange.handle(yield* signedRequest(options))
    if (response._tag !== "Response") return yield* Effect.dieMessage(`unexpected ${response._tag}`)
    const body = JSON.parse(response.body) as { readonly code: string; readonly msg: string }
    return [response.status, body.code] as const
  })

const spot = (overrides: Partial<SignedRequestOptions> = {}): SignedRequestOptions => ({
  operation: "spotBills",
  body: { limit: 5 },
  ...overrides
})

describe("FakeExchange authentication", () => {
  const cases: ReadonlyArray<readonly [string, SignedRequestOptions, number, string]> = [
    ["valid", spot(), 200, "00000"],
    ["no ACCESS-KEY", spot({ omit: ["access-key"] }), 400, "40001"],
    ["empty ACCESS-KEY", spot({ headers: { "access-key": "" } }), 400, "40001"],
    ["no ACCESS-SIGN", spot({ omit: ["access-sign"] }), 400, "40002"],
    ["no ACCESS-TIMESTAMP", spot({ omit: ["access-timestamp"] }), 400, "40003"],
    ["no ACCESS-PASSPHRASE", spot({ omit: ["access-passphrase"] }), 400, "40003"],
    ["non-digit timestamp", spot({ timestamp: "1.5e12" }), 400, "40005"],
    ["ISO timestamp", spot({ timestamp: "2025-01-01T00:00:00Z" }), 400, "40005"],
    ["unknown key", spot({ credentials: { ...FakeExchange.defaultCredentials, apiKey: "other" } }), 401, "40006"],
    ["wrong passphrase", spot({ headers: { "access-passphrase": "nope" } }), 401, "40006"],
    ["wrong secret", spot({ credentials: { ...FakeExchange.defaultCredentials, secret: "other" } }), 401, "40009"],
    ["signature of another body", spot({ headers: { "access-sign": "AAAA" } }), 401, "40009"],
    ["timestamp 31 s ahead", spot({ timestamp: 31_000 }), 401, "40008"],
    ["timestamp 30 s ahead", spot({ timestamp: 30_000 }), 200, "00000"],
    ["no Content-Type", spot({ omit: ["content-type"] }), 400, "40017"],
    ["text/plain", spot({ headers: { "content-type": "text/plain" } }), 400, "40017"]
  ]
  for (const [name, options, status, code] of cases) {
    it.effect(`${name} -> ${status} ${code}`, () =>
      Effect.gen(function* () {
        const exchange = yield* FakeExchange.make()
        expect(yield* answer(exchange, options)).toEqual([status, code])
      })
    )
  }

  it.effect("verifies the exact body text and the query string", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      const request = yield* signedRequest(spot({ body: '{"limit":5}' }))
      const spaced = yield* exchange.handle({ ...request, body: '{"limit": 5}' })
      expect(spaced).toMatchObject({ status: 401 })
      const queried = yield* exchange.handle({ ...request, query: "x=1" })
      expect(queried).toMatchObject({ status: 401 })
      const signedQuery = yield* signedRequest(spot({ query: "x=1" }))
      expect(yield* exchange.handle(signedQuery)).toMatchObject({ status: 200 })
      expect(yield* exchange.handle(request)).toMatchObject({ status: 200 })
    })
  )

  it.effect("checks the timestamp against its own clock, offset settable at runtime", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      yield* TestClock.adjust(60_000)
      expect(yield* answer(exchange, spot({ timestamp: 0 }))).toEqual([401, "40008"])
      expect(yield* answer(exchange, spot({ timestamp: 30_000 }))).toEqual([200, "00000"])
      yield* exchange.setClockOffset(-31_000)
      expect(yield* answer(exchange, spot({ timestamp: 60_000 }))).toEqual([401, "40008"])
      expect(yield* answer(exchange, spot({ timestamp: 29_000 }))).toEqual([200, "00000"])
      yield* exchange.configure({ maxSkewMillis: 100 })
      expect(yield* answer(exchange, spot({ timestamp: 29_200 }))).toEqual([401, "40008"])
    })
  )

  it.effect("accepts custom credentials", () =>
    Effect.gen(function* () {
      const credentials = { apiKey: "k", secret: "s", passphrase: "p" }
      const exchange = yield* FakeExchange.make({ credentials })
      expect(yield* answer(exchange, spot({ credentials }))).toEqual([200, "00000"])
      expect(yield* answer(exchange, spot())).toEqual([401, "40006"])
    })
  )
})

describe("FakeExchange rate limit", () => {
  const burst = (
    exchange: FakeExchangeService,
    n: number,
    operation: SignedRequestOptions["operation"] = "spotBills"
  ) =>
    Effect.gen(function* () {
      const now = yield* exchange.serverTime
      const statuses: Array<number> = []
      for (let i = 0; i < n; i++) statuses.push((yield* answer(exchange, { operation, timestamp: now }))[0])
      return statuses
    })

  it.effect("admits 10 per second per operation, then 429 with an envelope", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      expect(yield* burst(exchange, 10)).toEqual(Array(10).fill(200))
      const request = yield* signedRequest(spot())
      const limited = yield* exchange.handle(request)
      if (limited._tag !== "Response") return yield* Effect.dieMessage("no response")
      expect(limited.status).toBe(429)
      expect(JSON.parse(limited.body)).toEqual({ code: "429", msg: "Too Many Requests", requestTime: 0, data: null })
      // The other operation has its own window.
      expect(yield* burst(exchange, 10, "fundingBills")).toEqual(Array(10).fill(200))
      yield* TestClock.adjust(999)
      expect(yield* burst(exchange, 1)).toEqual([429])
      yield* TestClock.adjust(1)
      expect(yield* burst(exchange, 11)).toEqual([...Array(10).fill(200), 429])
      const stats = yield* exchange.stats
      expect(stats.spotBills).toMatchObject({ requests: 23, succeeded: 20, rateLimited: 3 })
      expect(stats.fundingBills).toMatchObject({ requests: 10, succeeded: 10, rateLimited: 0 })
    })
  )

  it.effect("slides: rejected requests do not count toward the window", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      expect(yield* burst(exchange, 5)).toEqual(Array(5).fill(200))
      yield* TestClock.adjust(500)
      expect(yield* burst(exchange, 8)).toEqual([...Array(5).fill(200), 429, 429, 429])
      yield* TestClock.adjust(500)
      // The five from t=0 left the window; the three rejected at t=500 never entered it.
      expect(yield* burst(exchange, 6)).toEqual([...Array(5).fill(200), 429])
    })
  )

  it.effect("is configurable and can be switched off at runtime", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ rateLimit: { limit: 2, windowMillis: 100 } })
      expect(yield* burst(exchange, 3)).toEqual([200, 200, 429])
      yield* exchange.configure({ rateLimit: false })
      expect(new Set(yield* burst(exchange, 50))).toEqual(new Set([200]))
    })
  )
})
