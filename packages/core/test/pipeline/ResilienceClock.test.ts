import { describe, expect, it } from "@effect/vitest"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { BillsApi, BillsConfig, BillsRateLimiter, Signer } from "../../src/index.js"
import { FakeExchange, rejections } from "../../src/testing/index.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"
import { credentials, envelope, makeStub } from "../support/stubHttp.js"

/** The exchange's clock is off by `offset` from ours; the real Signer signs. */
const skewed = (offset: number) =>
  fakeStack({
    exchange: { clockOffsetMillis: offset, generate: { seed: 9, funding: 40, spot: 40 } }
  })

/** Our clock at a realistic instant, so an exchange 60 s behind still has a positive clock. */
const realisticNow = TestClock.setTime(Date.UTC(2025, 5, 1))

const codes = (
  log: ReadonlyArray<{ readonly outcome: { readonly _tag: string; readonly code?: string | undefined } }>
) => log.map((r) => (r.outcome._tag === "Answered" ? r.outcome.code : r.outcome._tag))

describe("clock skew", () => {
  for (const offset of [60_000, -60_000]) {
    it.effect(
      `exchange ${offset > 0 ? "ahead" : "behind"} by 60 s: one rejection, one sync, then every call passes`,
      () =>
        Effect.gen(function* () {
          yield* realisticNow
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          const exit = yield* runOnTestClock(
            Effect.forEach(Array.from({ length: 15 }), () =>
              Effect.zip(api.spotBills({ limit: 100 }), api.fundingBills({ pageSize: 100 }))
            )
          )
          const pages = yield* exit
          expect(pages.every(([spot, funding]) => spot.length === 40 && funding.items.length === 40)).toBe(true)
          const log = yield* exchange.requests
          expect(codes(log).slice(0, 3)).toEqual([rejections.timestampExpired.code, "00000", "00000"])
          expect(log[1]?.path).toBe("/api/v2/public/time")
          expect(codes(log).filter((code) => code !== "00000")).toEqual([rejections.timestampExpired.code])
          expect((yield* exchange.stats).serverTimeRequests).toBe(1)
          // Each later timestamp is on the exchange's clock, not ours (the real signer awaits
          // WebCrypto, so the TestClock may run on a little before the request arrives).
          for (const request of log.slice(2)) {
            expect(Math.abs(Number(request.timestamp) - request.arrivalMillis)).toBeLessThan(1000)
          }
        }).pipe(Effect.provide(skewed(offset)))
    )
  }

  it.effect("fibers rejected together share one clock measurement", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const exit = yield* runOnTestClock(
        Effect.forEach(Array.from({ length: 20 }), () => api.spotBills(), { concurrency: "unbounded" })
      )
      expect((yield* exit).length).toBe(20)
      const stats = yield* exchange.stats
      expect(stats.serverTimeRequests).toBe(1)
      expect(stats.spotBills.succeeded).toBe(20)
      // Only the first window's requests went out with the old clock.
      expect(stats.spotBills.rejected).toBeLessThanOrEqual(10)
    }).pipe(Effect.provide(skewed(60_000)))
  )

  it.effect("syncClock on demand: returns the offset and spares the first rejection", () =>
    Effect.gen(function* () {
      yield* realisticNow
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      expect(yield* api.syncClock).toBe(-60_000)
      yield* api.spotBills()
      expect(codes(yield* exchange.requests)).toEqual(["00000", "00000"])
    }).pipe(Effect.provide(skewed(-60_000)))
  )

  it.effect("the clock is measured again when the exchange's clock moves during a run", () =>
    Effect.gen(function* () {
      yield* realisticNow
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* Effect.flatten(runOnTestClock(api.spotBills()))
      yield* exchange.setClockOffset(-45_000)
      yield* Effect.flatten(runOnTestClock(api.spotBills()))
      expect(yield* api.syncClock).toBe(-45_000)
      expect((yield* exchange.stats).serverTimeRequests).toBe(3)
    }).pipe(Effect.provide(skewed(60_000)))
  )

  it.effect("a clock that stays rejected after the sync fails the call with TimestampExpired", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      // The exchange tolerates no skew at all and its clock runs on between our reads.
      yield* exchange.configure({ maxSkewMillis: -1 })
      const error = yield* Effect.flip(api.spotBills())
      expect(error).toMatchObject({ _tag: "BillsApiError", reason: "TimestampExpired", code: "40008" })
      expect((yield* exchange.stats).spotBills.requests).toBe(2)
      expect((yield* exchange.stats).serverTimeRequests).toBe(1)
    }).pipe(Effect.provide(skewed(60_000)))
  )

  it.effect("when the time endpoint cannot be read, the call fails with the rejection it got", () =>
    Effect.gen(function* () {
      const stub = makeStub([
        { status: 401, body: envelope(null, "40008", "Request timestamp expired") },
        { status: 503, body: "<html>down</html>" }
      ])
      const api = yield* Effect.provide(BillsApi, stub.layer)
      const error = yield* Effect.flatten(runOnTestClock(Effect.flip(api.spotBills())))
      expect(error).toMatchObject({ _tag: "BillsApiError", reason: "TimestampExpired", operation: "spotBills" })
      // One call, then the time endpoint with its own bounded retries (maxAttempts 3).
      expect(stub.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
        "POST /api/v2/account/bills",
        "GET /api/v2/public/time",
        "GET /api/v2/public/time",
        "GET /api/v2/public/time"
      ])
      // The time endpoint is public: nothing secret is sent to it.
      expect(stub.requests[1]?.headers["access-key"]).toBeUndefined()
    })
  )

  it.effect("the offset is taken against the middle of the round trip", () =>
    Effect.gen(function* () {
      // The exchange, 60 s ahead, reads its clock 200 ms into a 400 ms round trip.
      const client = HttpClient.make((request) =>
        Effect.gen(function* () {
          yield* Effect.sleep(Duration.millis(200))
          const serverTime = (yield* Effect.clockWith((clock) => clock.currentTimeMillis)) + 60_000
          yield* Effect.sleep(Duration.millis(200))
          return HttpClientResponse.fromWeb(request, new Response(envelope(serverTime), { status: 200 }))
        })
      )
      const layer = BillsApi.layer.pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, client)),
        Layer.provide(Signer.layer(credentials)),
        Layer.provide(BillsRateLimiter.layerUnlimited),
        Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://exchange.test" })))
      )
      const api = yield* Effect.provide(BillsApi, layer)
      expect(yield* Effect.flatten(runOnTestClock(api.syncClock, Duration.millis(50)))).toBe(60_000)
    })
  )
})
