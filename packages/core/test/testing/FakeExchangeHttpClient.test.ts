import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { operationPath } from "../../src/internal/protocol.js"
import * as Signature from "../../src/Signature.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"

const baseUrl = "https://api-spot.weex.com"

/** What the real client does: JSON text body, ACCESS-* headers signed over it, then send. */
const post = (path: string, params: object) =>
  Effect.gen(function* () {
    const body = JSON.stringify(params)
    const timestamp = String(yield* Clock.currentTimeMillis)
    const { apiKey, passphrase, secret } = FakeExchange.defaultCredentials
    const sign = yield* Signature.sign(secret, { timestamp, method: "POST", path, query: "", body })
    const client = yield* HttpClient.HttpClient
    return yield* client.execute(
      HttpClientRequest.post(baseUrl + path).pipe(
        HttpClientRequest.bodyText(body, "application/json"),
        HttpClientRequest.setHeaders({
          "ACCESS-KEY": apiKey,
          "ACCESS-SIGN": sign,
          "ACCESS-PASSPHRASE": passphrase,
          "ACCESS-TIMESTAMP": timestamp,
          locale: "en-US"
        })
      )
    )
  })

const layer = FakeExchange.layer({ generate: { seed: 9, funding: 120, spot: 120 } })

describe("FakeExchange.layer (in-memory HttpClient)", () => {
  it.effect("serves signed requests through the real HttpClient", () =>
    Effect.gen(function* () {
      const response = yield* post(operationPath.fundingBills, { pageSize: 100, pageIndex: 2 })
      expect(response.status).toBe(200)
      const json = (yield* response.json) as { code: string; data: { total: number; items: ReadonlyArray<unknown> } }
      expect(json.code).toBe("00000")
      expect(json.data.total).toBe(120)
      expect(json.data.items).toHaveLength(20)
      const spot = yield* post(operationPath.spotBills, { limit: 101 })
      expect(spot.status).toBe(400)
      expect(yield* spot.json).toMatchObject({ code: "40017" })
      const exchange = yield* FakeExchange
      const log = yield* exchange.requests
      expect(log.map((r) => [r.operation, r.outcome])).toEqual([
        ["fundingBills", { _tag: "Answered", status: 200, code: "00000" }],
        ["spotBills", { _tag: "Answered", status: 400, code: "40017" }]
      ])
      expect(log[0]?.body).toBe('{"pageSize":100,"pageIndex":2}')
    }).pipe(Effect.provide(layer))
  )

  it.effect("answers the server time", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(12_345)
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get(`${baseUrl}/api/v2/public/time`)
      expect(yield* response.json).toMatchObject({ code: "00000", data: 12_345 })
    }).pipe(Effect.provide(layer))
  )

  it.effect("rate limits under TestClock", () =>
    Effect.gen(function* () {
      const statuses: Array<number> = []
      for (let i = 0; i < 12; i++) statuses.push((yield* post(operationPath.spotBills, {})).status)
      expect(statuses).toEqual([...Array(10).fill(200), 429, 429])
      yield* TestClock.adjust("1 second")
      expect((yield* post(operationPath.spotBills, {})).status).toBe(200)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a reset is a transport RequestError", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      yield* exchange.failNext(FakeFault.Reset())
      const error = yield* Effect.flip(post(operationPath.spotBills, {}))
      expect(error).toMatchObject({ _tag: "RequestError", reason: "Transport" })
    }).pipe(Effect.provide(layer))
  )

  it.effect("a hang never answers; the client's timeout ends it", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      yield* exchange.failNext(FakeFault.Hang())
      const fiber = yield* Effect.fork(Effect.timeoutOption(post(operationPath.spotBills, {}), "10 seconds"))
      yield* TestClock.adjust("9 seconds")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber))._tag).toBe("None")
    }).pipe(Effect.provide(layer))
  )

  it.effect("a truncated body fails to decode as JSON; HTML arrives as text", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      yield* exchange.failNext(FakeFault.Truncated())
      const truncated = yield* post(operationPath.spotBills, {})
      expect(truncated.status).toBe(200)
      expect(yield* Effect.flip(truncated.json)).toMatchObject({ _tag: "ResponseError", reason: "Decode" })
      yield* exchange.failNext(FakeFault.Html({ status: 502 }))
      const html = yield* post(operationPath.spotBills, {})
      expect(html.status).toBe(502)
      expect(html.headers["content-type"]).toBe("text/html")
      expect(yield* html.text).toContain("502 Bad Gateway")
    }).pipe(Effect.provide(layer))
  )

  it.effect("an unsigned request is refused with 40001", () =>
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(
        HttpClientRequest.post(baseUrl + operationPath.spotBills).pipe(HttpClientRequest.bodyText("{}"))
      )
      expect(response.status).toBe(400)
      expect(yield* response.json).toMatchObject({ code: "40001" })
    }).pipe(Effect.provide(layer))
  )
})
