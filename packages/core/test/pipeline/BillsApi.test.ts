import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { BillsApi, Signature } from "../../src/index.js"
import { type Canned, envelope, makeStub } from "../support/stubHttp.js"

const fundingRecord = {
  billId: "736825748291061726",
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: "100.5",
  afterAmount: "100.5",
  fees: "0",
  cTime: "1700000000000",
  fillSize: null,
  fillValue: null
}

const spotRecord = {
  billId: "736825748291061727",
  coinId: 1,
  coinName: "BTC",
  bizType: "trade_in",
  fillSize: "0.1",
  fillValue: "3000",
  deltaAmount: "0.1",
  afterAmount: "0.1",
  fees: "0",
  cTime: "1700000000001"
}

const run = <A, E>(answers: ReadonlyArray<Canned>, f: (api: BillsApi["Type"]) => Effect.Effect<A, E>) => {
  const stub = makeStub(answers)
  return { stub, effect: Effect.flatMap(BillsApi, f).pipe(Effect.provide(stub.layer)) }
}

describe("BillsApi operations", () => {
  it.effect("fundingBills sends a signed POST and decodes the page", () => {
    const { stub, effect } = run(
      [
        { status: 200, body: envelope({ total: 1, page: 1, pageSize: 10, hasNextPage: false, items: [fundingRecord] }) }
      ],
      (api) => api.fundingBills({ coinId: 2, pageSize: 10 })
    )
    return Effect.gen(function* () {
      yield* TestClock.setTime(1_700_000_123_456)
      const page = yield* effect
      expect(page.total).toBe(1)
      expect(page.items[0]?.billId).toBe("736825748291061726")
      const [request] = stub.requests
      expect(request?.method).toBe("POST")
      expect(request?.url).toBe("https://exchange.test/api/v2/account/fundingBills")
      expect(request?.body).toBe('{"coinId":2,"pageSize":10}')
      expect(request?.headers["content-type"]).toBe("application/json")
      expect(request?.headers.locale).toBe("en-US")
      expect(request?.headers["access-timestamp"]).toBe("1700000123456")
      expect(request?.headers["access-key"]).toBe("key-AKIA-visible-nowhere")
      expect(request?.headers["access-passphrase"]).toBe("pass-phrase-visible-nowhere")
      const expected = yield* Signature.sign("secret-s3cr3t-visible-nowhere", {
        timestamp: "1700000123456",
        method: "POST",
        path: "/api/v2/account/fundingBills",
        query: "",
        body: '{"coinId":2,"pageSize":10}'
      })
      expect(request?.headers["access-sign"]).toBe(expected)
      // Nothing of the caller's tracing leaves for the exchange.
      expect(Object.keys(request?.headers ?? {}).filter((name) => /traceparent|^b3$|x-b3/.test(name))).toEqual([])
    })
  })

  it.effect("spotBills sends its window and decodes the records", () => {
    const { stub, effect } = run([{ status: 200, body: envelope([spotRecord]) }], (api) =>
      api.spotBills({ after: DateTime.unsafeMake(1_699_999_999_000), limit: 100, bizType: "trade_in" })
    )
    return Effect.gen(function* () {
      const bills = yield* effect
      expect(bills).toHaveLength(1)
      expect(bills[0]?.raw).toEqual(spotRecord)
      expect(stub.requests[0]?.url).toBe("https://exchange.test/api/v2/account/bills")
      expect(stub.requests[0]?.body).toBe('{"bizType":"trade_in","after":"1699999999000","limit":100}')
    })
  })

  it.effect("an empty call sends an empty JSON object", () => {
    const { stub, effect } = run([{ status: 200, body: envelope([]) }], (api) => api.spotBills())
    return Effect.gen(function* () {
      expect(yield* effect).toEqual([])
      expect(stub.requests[0]?.body).toBe("{}")
    })
  })
})

const apiErrors: ReadonlyArray<readonly [string, Canned, string]> = [
  [
    "40001 header missing",
    { status: 400, body: envelope(null, "40001", "ACCESS_KEY header is required") },
    "Authentication"
  ],
  ["40006 invalid key", { status: 401, body: envelope(null, "40006", "Invalid ACCESS_KEY") }, "Authentication"],
  ["40009 bad signature", { status: 200, body: envelope(null, "40009", "sign signature error") }, "Authentication"],
  ["40012 auth", { status: 401, body: envelope(null, "40012", "apikey/password is incorrect") }, "Authentication"],
  ["40014 permission", { status: 403, body: envelope(null, "40014", "Incorrect permissions") }, "Permission"],
  [
    "40017 parameter",
    { status: 400, body: envelope(null, "40017", "Parameter verification failed") },
    "InvalidParameter"
  ],
  [
    "40707 start after end",
    { status: 400, body: envelope(null, "40707", "start time is after end time") },
    "InvalidParameter"
  ],
  ["40704 history limit", { status: 400, body: envelope(null, "40704", "only last three months") }, "HistoryLimit"],
  ["40008 expired", { status: 400, body: envelope(null, "40008", "Request timestamp expired") }, "TimestampExpired"],
  ["unknown code on 200", { status: 200, body: envelope(null, "49999", "something new") }, "Unknown"]
]

describe("BillsApi failures", () => {
  for (const [name, answer, reason] of apiErrors) {
    it.effect(`${name} gives BillsApiError ${reason} and is not retried`, () => {
      const { stub, effect } = run([answer], (api) => api.spotBills({ limit: 5 }))
      return Effect.gen(function* () {
        const fiber = yield* Effect.fork(Effect.flip(effect))
        yield* TestClock.adjust("1 minute")
        const error = yield* Fiber.join(fiber)
        expect(error._tag).toBe("BillsApiError")
        if (error._tag !== "BillsApiError") return
        expect(error.reason).toBe(reason)
        expect(error.status).toBe("status" in answer ? answer.status : 0)
        expect(error.code).toBe(JSON.parse("body" in answer ? answer.body : "{}").code)
        expect(error.requestTime).toBe(1700000000000)
        expect(error.message).toContain(error.code)
        // 40008 gets one clock resync elsewhere; the others are final at once.
        if (reason !== "TimestampExpired") expect(stub.requests).toHaveLength(1)
      })
    })
  }

  it.effect("HTTP 429 without an envelope is RateLimited after the bounded attempts", () => {
    const { stub, effect } = run([{ status: 429, body: "Too Many Requests" }], (api) => api.spotBills())
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      yield* TestClock.adjust("5 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag === "BillsApiError" && error.reason).toBe("RateLimited")
      expect(stub.requests).toHaveLength(3)
    })
  })

  it.effect("maintenance 40200 is Maintenance", () => {
    const { effect } = run([{ status: 503, body: envelope(null, "40200", "system maintenance") }], (api) =>
      api.fundingBills()
    )
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      yield* TestClock.adjust("5 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag === "BillsApiError" && error.reason).toBe("Maintenance")
    })
  })

  it.effect("HTTP 502 with an HTML page is ServerError", () => {
    const { effect } = run([{ status: 502, body: "<html><body>Bad Gateway</body></html>" }], (api) => api.spotBills())
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      yield* TestClock.adjust("5 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag === "BillsApiError" && error.reason).toBe("ServerError")
    })
  })

  it.effect("a body that is not JSON gives BillsDecodeError with a bounded excerpt", () => {
    const html = `<html>${"x".repeat(1000)}</html>`
    const { effect } = run([{ status: 200, body: html }], (api) => api.spotBills())
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      yield* TestClock.adjust("5 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("BillsDecodeError")
      if (error._tag !== "BillsDecodeError") return
      expect(error.stage).toBe("Json")
      expect(error.bodyExcerpt.startsWith("<html>xxx")).toBe(true)
      expect(error.bodyExcerpt.length).toBeLessThanOrEqual(201)
    })
  })

  it.effect("a malformed record gives BillsDecodeError naming the field path", () => {
    const bad = { ...fundingRecord, deltaAmount: "1,5" }
    const { stub, effect } = run(
      [
        {
          status: 200,
          body: envelope({ total: 2, page: 1, pageSize: 10, hasNextPage: false, items: [fundingRecord, bad] })
        }
      ],
      (api) => api.fundingBills()
    )
    return Effect.gen(function* () {
      const error = yield* Effect.flip(effect)
      expect(error._tag).toBe("BillsDecodeError")
      if (error._tag !== "BillsDecodeError") return
      expect(error.stage).toBe("Data")
      expect(error.path).toBe("data.items[1].deltaAmount")
      expect(error.message).toContain("data.items[1].deltaAmount")
      expect(stub.requests).toHaveLength(1)
    })
  })

  it.effect("a wrong data shape gives BillsDecodeError", () => {
    const { effect } = run([{ status: 200, body: envelope({ items: "nope" }) }], (api) => api.spotBills())
    return Effect.gen(function* () {
      const error = yield* Effect.flip(effect)
      expect(error._tag === "BillsDecodeError" && error.path).toBe("data")
    })
  })

  it.effect("a transport failure gives BillsTransportError after the bounded attempts", () => {
    const { stub, effect } = run([{ reset: true }], (api) => api.fundingBills())
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      yield* TestClock.adjust("5 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag === "BillsTransportError" && error.reason).toBe("Transport")
      expect(stub.requests).toHaveLength(3)
    })
  })

  it.effect("a hanging server gives a Timeout, each attempt bounded by the request timeout", () => {
    const { stub, effect } = run([{ hang: true }], (api) => api.spotBills())
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.flip(effect))
      yield* TestClock.adjust("10 seconds")
      expect(stub.requests).toHaveLength(1)
      yield* TestClock.adjust("5 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag === "BillsTransportError" && error.reason).toBe("Timeout")
      expect(stub.requests).toHaveLength(3)
    })
  })

  it.effect("a transient failure followed by success succeeds", () => {
    const { stub, effect } = run(
      [{ status: 503, body: "unavailable" }, { reset: true }, { status: 200, body: envelope([spotRecord]) }],
      (api) => api.spotBills()
    )
    return Effect.gen(function* () {
      const fiber = yield* Effect.fork(effect)
      yield* TestClock.adjust("5 minutes")
      expect(yield* Fiber.join(fiber)).toHaveLength(1)
      const stamps = stub.requests.map((r) => r.headers["access-timestamp"])
      expect(new Set(stamps).size).toBe(3)
    })
  })
})
