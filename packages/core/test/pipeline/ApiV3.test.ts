import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import {
  BillsApi,
  BillsApiError,
  type BillsApiErrorReason,
  BillsConfig,
  BillsRateLimiter,
  type PermitOutcome,
  Signer
} from "../../src/index.js"
import { envelopeV2 } from "../../src/internal/envelopeV2.js"
import { envelopeV3 } from "../../src/internal/envelopeV3.js"
import { reasonOfV3 } from "../../src/internal/errorReason.js"
import { FakeExchange, FakeFault, rejectionsV3, signedRequest } from "../../src/testing/index.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"
import { collect, expectExactly } from "../support/streamCheck.js"

/** After the generated history (2025-01-01 + 90 days), so a walk pinned at "now" sees all of it. */
const afterHistory = TestClock.setTime(Date.UTC(2025, 5, 1))

const v3 = (options: Parameters<typeof fakeStack>[0] = {}) => fakeStack(options, "v3")

/** Every v3 code the client classifies, with its reason. */
const v3Codes: ReadonlyArray<readonly [code: string, reason: BillsApiErrorReason]> = [
  ["-1040", "Authentication"],
  ["-1041", "Authentication"],
  ["-1042", "Authentication"],
  ["-1043", "TimestampExpired"],
  ["-1044", "Authentication"],
  ["-1045", "InvalidParameter"],
  ["-1046", "TimestampExpired"],
  ["-1047", "Authentication"],
  ["-1049", "Authentication"],
  ["-1050", "Permission"],
  ["-1051", "Permission"],
  ["-1052", "Permission"],
  ["-1053", "Permission"],
  ["-1056", "Permission"],
  ["-1057", "Permission"],
  ["-1140", "InvalidParameter"],
  ["-1141", "InvalidParameter"],
  ["-1142", "InvalidParameter"],
  ["-1171", "InvalidParameter"],
  ["-1170", "HistoryLimit"],
  ["-1054", "ServerError"],
  ["-1000", "Unknown"]
]

describe("v3: the operations", () => {
  it.effect("fundingBills and spotBills go to the v3 paths and decode the bare payloads", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const page = yield* api.fundingBills({ pageIndex: 2, pageSize: 10 })
      const spot = yield* api.spotBills({ limit: 7 })
      expect(page.items.length).toBe(10)
      expect(page.page).toBe(2)
      expect(page.hasNextPage).toBe(true)
      expect(spot.length).toBe(7)
      const all = yield* exchange.bills("funding")
      // Newest first: page 2 of 10 holds the 11th to 20th newest.
      expect(page.items.map((bill) => bill.raw)).toEqual(all.slice(-20, -10).reverse())
      const paths = (yield* exchange.requests).map((request) => `${request.method} ${request.path}`)
      expect(paths).toEqual(["POST /api/v3/account/fundingBills", "POST /api/v3/account/bills"])
    }).pipe(Effect.provide(v3({ exchange: { generate: { seed: 5, funding: 40, spot: 40 } } })))
  )

  it.effect("the fake's v3 answers carry no envelope: a page with `pages`, a bare array, {code, msg} on failure", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ apiVersion: "v3", generate: { seed: 2, funding: 30, spot: 30 } })
      const body = (response: { readonly _tag: string }) => ("body" in response ? String(response.body) : "")
      const funding = yield* exchange.handle(
        yield* signedRequest({ operation: "fundingBills", apiVersion: "v3", body: { pageSize: 20 } })
      )
      expect(Object.keys(JSON.parse(body(funding)))).toEqual([
        "total",
        "pageSize",
        "pages",
        "page",
        "hasNextPage",
        "items"
      ])
      expect(JSON.parse(body(funding))).toMatchObject({ total: 30, pageSize: 20, pages: 2, page: 1, hasNextPage: true })
      const spot = yield* exchange.handle(yield* signedRequest({ operation: "spotBills", apiVersion: "v3" }))
      expect(Array.isArray(JSON.parse(body(spot)))).toBe(true)
      const refused = yield* exchange.handle(
        yield* signedRequest({ operation: "spotBills", apiVersion: "v3", omit: ["access-sign"] })
      )
      expect(refused).toMatchObject({ status: 400 })
      expect(JSON.parse(body(refused))).toEqual({ code: -1041, msg: rejectionsV3.missingSign.msg })
      const time = yield* exchange.handle({ method: "GET", path: "/api/v3/time", query: "", headers: {}, body: "" })
      expect(JSON.parse(body(time))).toEqual({ serverTime: 0 })
      // v3 mode serves v3 only, so a client on the wrong paths is caught.
      const v2Path = yield* exchange.handle(yield* signedRequest({ operation: "spotBills" }))
      expect(v2Path).toMatchObject({ status: 404 })
    })
  )

  it.effect("both streams are exact on v3", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const walks = Effect.all([collect(api.streamFundingBills()), collect(api.streamSpotBills())])
      const [funding, spot] = yield* Effect.flatten(runOnTestClock(walks, Duration.seconds(1)))
      expectExactly(funding.bills, yield* exchange.bills("funding"))
      expectExactly(spot.bills, yield* exchange.bills("spot"))
    }).pipe(Effect.provide(v3({ exchange: { generate: { seed: 9, funding: 1500, spot: 1500 } } })))
  )
})

describe("v3: failures", () => {
  for (const [code, reason] of v3Codes) {
    it.effect(`code ${code} on HTTP 400 is ${reason}`, () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        yield* exchange.setPermanentFault(FakeFault.Code({ status: 400, code, msg: "scripted" }))
        const exit = yield* runOnTestClock(Effect.flip(api.spotBills()))
        const error = yield* exit
        expect(error).toMatchObject({ _tag: "BillsApiError", code, reason, status: 400, msg: "scripted" })
        expect(error._tag === "BillsApiError" && error.requestTime).toBeUndefined()
        // Only the system error is worth another attempt (5 in all); the rest fail at once,
        // the timestamp ones after one clock measurement and one more attempt.
        const expected = reason === "ServerError" ? 5 : reason === "TimestampExpired" ? 2 : 1
        expect((yield* exchange.stats).spotBills.requests).toBe(expected)
      }).pipe(Effect.provide(v3()))
    )
  }

  it.effect("a system error (-1054) and a 429 are retried, then the call succeeds", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.injectFaults([
        { nth: 1, fault: FakeFault.Code({ status: 400, code: "-1054", msg: "System error, please retry later" }) },
        { nth: 2, fault: FakeFault.Status({ status: 429 }) }
      ])
      const bills = yield* Effect.flatten(runOnTestClock(api.spotBills({ limit: 5 })))
      expect(bills.length).toBe(5)
      const log = yield* exchange.requests
      expect(log.map((request) => request.outcome._tag)).toEqual(["Faulted", "Faulted", "Answered"])
    }).pipe(Effect.provide(v3({ exchange: { generate: { seed: 4, funding: 0, spot: 20 } } })))
  )

  it.effect("a wrong secret is Authentication with code -1047, and the secret is nowhere in the error", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const error = yield* Effect.flip(api.spotBills())
      expect(error).toMatchObject({ _tag: "BillsApiError", reason: "Authentication", code: "-1047", status: 401 })
      expect(error.message).toContain("-1047")
      expect(JSON.stringify(error)).not.toContain("not-the-secret")
      expect(error.message).not.toContain("not-the-secret")
    }).pipe(
      Effect.provide(
        v3({ exchange: { credentials: { ...FakeExchange.defaultCredentials, secret: "not-the-secret" } } })
      )
    )
  )

  it.effect("the exchange ahead by a minute: one -1046, one GET /api/v3/time, then every call passes", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* api.spotBills({ limit: 3 })
      yield* api.spotBills({ limit: 3 })
      const log = yield* exchange.requests
      expect(log.map((request) => `${request.method} ${request.path}`)).toEqual([
        "POST /api/v3/account/bills",
        "GET /api/v3/time",
        "POST /api/v3/account/bills",
        "POST /api/v3/account/bills"
      ])
      expect(log[0]?.outcome).toMatchObject({ _tag: "Answered", status: 401 })
    }).pipe(Effect.provide(v3({ exchange: { generate: { seed: 3, spot: 10 }, clockOffsetMillis: 60_000 } })))
  )
})

describe("v3: the limiter", () => {
  /** The real client over a fake on `apiVersion`, with a limiter that keeps what each attempt reports. */
  const observed = (apiVersion: "v2" | "v3") => {
    const outcomes: Array<PermitOutcome | undefined> = []
    const limiter = Layer.succeed(
      BillsRateLimiter,
      BillsRateLimiter.of({
        withPermit: (_operation, observe) => (request) =>
          Effect.onExit(request, (exit) => Effect.sync(() => outcomes.push(observe?.(exit)))),
        take: () => Effect.void
      })
    )
    const { apiKey, passphrase, secret } = FakeExchange.defaultCredentials
    const layer = BillsApi.layer.pipe(
      Layer.provideMerge(FakeExchange.layer({ apiVersion, generate: { seed: 1, spot: 5 } })),
      Layer.provide(
        Signer.layer({
          apiKey: Redacted.make(apiKey),
          secret: Redacted.make(secret),
          passphrase: Redacted.make(passphrase)
        })
      ),
      Layer.provide(limiter),
      Layer.provide(
        Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake-exchange.test", apiVersion, maxAttempts: 1 }))
      )
    )
    return { outcomes, layer }
  }

  for (const apiVersion of ["v2", "v3"] as const) {
    const { layer, outcomes } = observed(apiVersion)
    it.effect(
      `${apiVersion}: answers and refusals report ${apiVersion === "v2" ? "the server's stamp" : "no stamp"}`,
      () =>
        Effect.gen(function* () {
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          yield* TestClock.setTime(1_000)
          yield* api.spotBills()
          yield* exchange.injectFaults([
            { nth: 2, fault: FakeFault.Status({ status: 429 }) },
            { nth: 3, fault: FakeFault.Code({ status: 400, code: apiVersion === "v2" ? "40017" : "-1140", msg: "no" }) }
          ])
          yield* Effect.exit(api.spotBills())
          yield* Effect.exit(api.spotBills())
          const stamps = outcomes.map((outcome) => outcome?.serverTime)
          expect(outcomes.map((outcome) => outcome?.rateLimited)).toEqual([false, true, false])
          expect(stamps).toEqual(apiVersion === "v2" ? [1_000, 1_000, 1_000] : [undefined, undefined, undefined])
        }).pipe(Effect.provide(layer))
    )
  }
})

describe("v3: the settings", () => {
  const versionFrom = (env: Record<string, string>) =>
    Effect.either(Effect.provide(BillsConfig, BillsConfig.layerConfig())).pipe(
      Effect.map(Either.map((config) => config.apiVersion)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
    )

  it.effect("WEEX_API_VERSION chooses the interface; v2 when unset; anything else is a ConfigError", () =>
    Effect.gen(function* () {
      expect(yield* versionFrom({ WEEX_API_VERSION: "v3" })).toEqual(Either.right("v3"))
      expect(yield* versionFrom({ WEEX_API_VERSION: "v2" })).toEqual(Either.right("v2"))
      expect(yield* versionFrom({})).toEqual(Either.right("v2"))
      const wrong = yield* versionFrom({ WEEX_API_VERSION: "v4" })
      expect(Either.isLeft(wrong) && String(wrong.left)).toContain("WEEX_API_VERSION")
      expect(BillsConfig.defaults.apiVersion).toBe("v2")
    })
  )
})

describe("v3: the interpreter, pure", () => {
  const interpret = (status: number, text: string) =>
    envelopeV3.interpret("spotBills", { status, text, received: text, retryAfter: undefined }, 0)

  it("a failure with a code keeps the Retry-After the server sent, as seconds or as a date", () => {
    const failed = (retryAfter: string | undefined) =>
      Either.getLeft(
        envelopeV3.interpret(
          "spotBills",
          { status: 429, text: '{"code":-1054,"msg":"busy"}', received: '{"code":-1054,"msg":"busy"}', retryAfter },
          10_000
        )
      )
    expect(failed("3")).toMatchObject({ value: { _tag: "BillsApiError", code: "-1054", retryAfterMillis: 3_000 } })
    expect(failed(new Date(15_000).toUTCString())).toMatchObject({ value: { retryAfterMillis: 5_000 } })
    const none = failed(undefined)
    expect(none._tag === "Some" && "retryAfterMillis" in none.value && none.value.retryAfterMillis).toBe(false)
  })

  it("a gateway page is retried by status: 502 ServerError, 429 RateLimited; a 404 page is unreadable", () => {
    const html = "<html><body>Bad Gateway</body></html>"
    expect(Either.getLeft(interpret(502, html))).toMatchObject({
      value: { _tag: "BillsApiError", reason: "ServerError" }
    })
    expect(Either.getLeft(interpret(429, html))).toMatchObject({
      value: { _tag: "BillsApiError", reason: "RateLimited" }
    })
    expect(Either.getLeft(interpret(404, html))).toMatchObject({
      value: { _tag: "BillsDecodeError", stage: "Json" }
    })
  })

  it("a code in the body is a failure whatever the status; a 429 is RateLimited whatever the code", () => {
    expect(Either.getLeft(interpret(200, '{"code":-1054,"msg":"System error"}'))).toMatchObject({
      value: { _tag: "BillsApiError", reason: "ServerError", code: "-1054", status: 200 }
    })
    expect(Either.getLeft(interpret(429, '{"code":-1000,"msg":"busy"}'))).toMatchObject({
      value: { reason: "RateLimited", code: "-1000" }
    })
  })

  // A code decides the reason whatever the status beside it, as on v2: -1000 on an HTTP 5xx is
  // still Unknown (not a ServerError, which would be retried), and a code the client does not
  // know falls back to the status. Only a 429 overrides the code.
  it("a known code names its reason on any status but 429; an unknown code falls back to the status", () => {
    for (const [code, reason] of v3Codes) {
      for (const status of [200, 400, 401, 403, 500, 503]) expect(reasonOfV3(code, status)).toBe(reason)
      expect(reasonOfV3(code, 429)).toBe("RateLimited")
    }
    expect(reasonOfV3("-1999", 500)).toBe("ServerError")
    expect(reasonOfV3("-1999", 401)).toBe("Authentication")
    expect(reasonOfV3("-1999", 403)).toBe("Permission")
    expect(reasonOfV3("-1999", 400)).toBe("Unknown")
  })

  it("a payload succeeds with no stamp; an error status without a code is unreadable", () => {
    expect(interpret(200, "[]")).toEqual(Either.right({ data: [], requestTime: undefined, received: "[]" }))
    expect(Either.getLeft(interpret(400, "{}"))).toMatchObject({ value: { _tag: "BillsDecodeError", path: "code" } })
  })

  // What each unreadable answer is reported as: a body that is not JSON is an envelope failure
  // whatever its status (not a success with no payload), only a 2xx is a payload, and the
  // description says what was wrong with the body.
  it("an answer that is not JSON, not 2xx or without msg is reported for what it is", () => {
    expect(Either.getLeft(interpret(200, "<html>maintenance</html>"))).toMatchObject({
      value: { _tag: "BillsDecodeError", stage: "Json", status: 200 }
    })
    const html = Either.getLeft(interpret(404, "<html>Not Found</html>"))
    expect(html._tag === "Some" && html.value.message).not.toContain("without an error code")
    expect(Either.getLeft(interpret(300, "[]"))).toMatchObject({
      value: { _tag: "BillsDecodeError", path: "code", description: "HTTP 300 without an error code" }
    })
    expect(Either.getLeft(interpret(400, '{"code":-1170}'))).toMatchObject({
      value: { _tag: "BillsApiError", reason: "HistoryLimit", code: "-1170", msg: "" }
    })
  })

  it("a code that is not a v3 integer: a v2 code names the version it came from, a fraction does not", () => {
    const v2 = Either.getLeft(interpret(200, '{"code":"40704","msg":"x"}'))
    expect(v2._tag === "Some" && v2.value.message).toContain("answered as its v2 interface")
    expect(v2._tag === "Some" && v2.value.message).toContain("not v3")
    const fraction = Either.getLeft(interpret(400, '{"code":-1.5,"msg":"x"}'))
    expect(fraction).toMatchObject({ value: { _tag: "BillsDecodeError", path: "code" } })
    expect(fraction._tag === "Some" && fraction.value.message).not.toContain("answered as")
  })

  it.effect("decode failures name the field from the body's root (v2: under data)", () =>
    Effect.gen(function* () {
      const schema = Schema.Struct({ items: Schema.Array(Schema.Struct({ cTime: Schema.NumberFromString })) })
      const data = { items: [{ cTime: "1" }, { cTime: "x" }] }
      const answer = { data, requestTime: undefined, received: JSON.stringify(data) }
      const onV3 = yield* Effect.flip(envelopeV3.decode("spotBills", schema)(answer))
      const onV2 = yield* Effect.flip(envelopeV2.decode("spotBills", schema)(answer))
      expect(onV3.path).toBe("items[1].cTime")
      expect(onV2.path).toBe("data.items[1].cTime")
    })
  )

  it.effect("server time: {serverTime} on v3, the envelope's data on v2", () =>
    Effect.gen(function* () {
      const answer = (data: unknown) => ({ data, requestTime: undefined, received: JSON.stringify(data) })
      expect(yield* envelopeV3.serverTime(answer({ serverTime: 1764505776347 }))).toBe(1764505776347)
      expect(yield* envelopeV2.serverTime(answer(1764505776347))).toBe(1764505776347)
      expect((yield* Effect.flip(envelopeV3.serverTime(answer(1764505776347))))._tag).toBe("BillsDecodeError")
    })
  )

  it("an unknown failure is a BillsApiError instance", () => {
    const left = Either.getLeft(interpret(400, '{"code":-9999,"msg":"new"}'))
    expect(left._tag === "Some" && left.value instanceof BillsApiError && left.value.reason).toBe("Unknown")
  })
})
