import {
  FakeExchange,
  type FakeExchangeService,
  FakeFault,
  type FakeRequest,
  signedRequest
} from "@account-bills/core/testing"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { FakeExchangeServer } from "../src/FakeExchangeServer.js"

const toHttp = (base: string, request: FakeRequest): HttpClientRequest.HttpClientRequest => {
  const url = base + request.path + (request.query === "" ? "" : `?${request.query}`)
  const plain = HttpClientRequest.make(request.method === "GET" ? "GET" : "POST")(url).pipe(
    HttpClientRequest.setHeaders(request.headers)
  )
  return request.body === "" && request.method === "GET"
    ? plain
    : HttpClientRequest.bodyText(plain, request.body, request.headers["content-type"] ?? "text/plain")
}

/** Sends the same request through the loopback server and the in-memory client. */
const both = (request: FakeRequest) =>
  Effect.gen(function* () {
    const server = yield* FakeExchangeServer
    const exchange: FakeExchangeService = yield* FakeExchange
    const node = yield* HttpClient.HttpClient
    const memory = FakeExchange.httpClient(exchange)
    const viaServer = yield* node.execute(toHttp(server.url, request))
    const viaMemory = yield* memory.execute(toHttp("https://api-spot.weex.com", request))
    return {
      server: { status: viaServer.status, body: yield* viaServer.text },
      memory: { status: viaMemory.status, body: yield* viaMemory.text }
    }
  })

const layer = Layer.merge(
  FakeExchangeServer.layer({ rateLimit: false, generate: { seed: 5, funding: 300, spot: 300 } }),
  NodeHttpClient.layerUndici
)

describe("FakeExchangeServer", () => {
  it.scoped("listens on 127.0.0.1 and answers like the in-memory client", () =>
    Effect.gen(function* () {
      const server = yield* FakeExchangeServer
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const requests: ReadonlyArray<FakeRequest> = [
        yield* signedRequest({ operation: "fundingBills", body: { pageIndex: 2, pageSize: 100 } }),
        yield* signedRequest({ operation: "spotBills", body: { coinId: 2, limit: 50 } }),
        yield* signedRequest({ operation: "spotBills", body: { limit: 101 } }),
        yield* signedRequest({ operation: "fundingBills", body: { startTime: "9", endTime: "1" } }),
        yield* signedRequest({ operation: "spotBills", body: {}, query: "a=1&b=%20x" }),
        yield* signedRequest({ operation: "spotBills", body: {}, omit: ["access-key"] }),
        yield* signedRequest({ operation: "spotBills", body: {}, headers: { "access-sign": "bad" } }),
        yield* signedRequest({ operation: "spotBills", body: {}, timestamp: 40_000 }),
        { method: "GET", path: "/api/v2/public/time", query: "", headers: {}, body: "" },
        { method: "GET", path: "/nowhere", query: "", headers: {}, body: "" }
      ]
      const expected = [200, 200, 400, 400, 200, 400, 401, 401, 200, 404]
      for (const [i, request] of requests.entries()) {
        const { memory, server: viaServer } = yield* both(request)
        expect(viaServer).toEqual(memory)
        expect(viaServer.status).toBe(expected[i])
      }
      const first = yield* both(requests[0] as FakeRequest)
      expect(JSON.parse(first.server.body).data.items).toHaveLength(100)
    }).pipe(Effect.provide(layer))
  )

  it.scoped("injected faults look the same over both transports", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      const request = yield* signedRequest({ operation: "spotBills", body: { limit: 20 } })
      for (const fault of [
        FakeFault.Status({ status: 503 }),
        FakeFault.Html({ status: 502 }),
        FakeFault.Truncated(),
        FakeFault.Code({ status: 200, code: "40200", msg: "System maintenance" })
      ]) {
        yield* exchange.failNext(fault, { count: 2 })
        const { memory, server } = yield* both(request)
        expect(server).toEqual(memory)
      }
      yield* exchange.failNext(FakeFault.Reset())
      const node = yield* HttpClient.HttpClient
      const url = (yield* FakeExchangeServer).url
      const reset = yield* Effect.flip(node.execute(toHttp(url, request)))
      expect(reset).toMatchObject({ _tag: "RequestError", reason: "Transport" })
      yield* exchange.failNext(FakeFault.Hang(), { operation: "fundingBills" })
      const hung = yield* signedRequest({ operation: "fundingBills", body: {} })
      const hang = yield* Effect.fork(node.execute(toHttp(url, hung)))
      // Wait (on real IO, no timers) until the hung request has reached the server.
      yield* exchange.requests.pipe(
        Effect.zipLeft(Effect.yieldNow()),
        Effect.repeat({
          until: (log) => log.some((r) => r.outcome._tag === "Faulted" && r.outcome.fault._tag === "Hang")
        })
      )
      const after = yield* node.execute(toHttp(url, request))
      expect(after.status).toBe(200)
      expect(hang.unsafePoll()).toBeNull()
      yield* Fiber.interrupt(hang)
    }).pipe(Effect.provide(layer))
  )

  it.scoped("refuses non-loopback hosts", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(FakeExchangeServer.make({ host: "0.0.0.0" }))
      expect(error._tag).toBe("FakeExchangeServerError")
      expect(error.message).toContain("loopback")
    })
  )
})
