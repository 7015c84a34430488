import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import {
  BillsApi,
  BillsApiError,
  type BillsApiErrorReason,
  BillsDecodeError,
  type BillsError,
  BillsIncomplete,
  BillsTransportError,
  InvalidParams
} from "../../src/index.js"
import { reasonOf } from "../../src/internal/errorReason.js"
import { isClockSkew, isTransient } from "../../src/internal/retry.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"

/** Every v2 failure code the exchange is known to send, with the reason it must map to. */
const designCodes: ReadonlyArray<readonly [code: string, reason: BillsApiErrorReason]> = [
  ["40001", "Authentication"],
  ["40002", "Authentication"],
  ["40003", "Authentication"],
  ["40005", "TimestampExpired"],
  ["40006", "Authentication"],
  ["40008", "TimestampExpired"],
  ["40009", "Authentication"],
  ["40011", "Authentication"],
  ["40012", "Authentication"],
  ["40014", "Permission"],
  ["40018", "Permission"],
  ["40017", "InvalidParameter"],
  ["40704", "HistoryLimit"],
  ["40707", "InvalidParameter"],
  ["40200", "Maintenance"]
]

const apiError = (reason: BillsApiErrorReason, status = 400) =>
  new BillsApiError({ operation: "spotBills", reason, code: "", msg: "", status })

/** What each reason must do: retried with backoff, repaired once by a clock sync, or never repeated. */
const decisions: ReadonlyArray<readonly [BillsApiErrorReason, "retry" | "resync clock" | "fail"]> = [
  ["Authentication", "fail"],
  ["Permission", "fail"],
  ["TimestampExpired", "resync clock"],
  ["RateLimited", "retry"],
  ["InvalidParameter", "fail"],
  ["HistoryLimit", "fail"],
  ["Maintenance", "retry"],
  ["ServerError", "retry"],
  ["Unknown", "fail"]
]

const decisionOf = (error: BillsError) => (isTransient(error) ? "retry" : isClockSkew(error) ? "resync clock" : "fail")

describe("reasonOf", () => {
  for (const [code, reason] of designCodes) {
    it(`code ${code} is ${reason}, whatever the HTTP status`, () => {
      for (const status of [200, 400, 401, 403, 500]) expect(reasonOf(code, status)).toBe(reason)
    })
  }

  it("HTTP status decides when the code is unknown or missing", () => {
    expect(reasonOf("", 429)).toBe("RateLimited")
    expect(reasonOf("429", 200)).toBe("RateLimited")
    for (const status of [500, 502, 503, 504]) expect(reasonOf("", status)).toBe("ServerError")
    expect(reasonOf("", 401)).toBe("Authentication")
    expect(reasonOf("", 403)).toBe("Permission")
    expect(reasonOf("49999", 400)).toBe("Unknown")
    expect(reasonOf("49999", 200)).toBe("Unknown")
  })
})

describe("retry decisions", () => {
  for (const [reason, decision] of decisions) {
    it(`${reason}: ${decision}`, () => {
      expect(decisionOf(apiError(reason))).toBe(decision)
    })
  }

  it("transport failures and timeouts are retried", () => {
    for (const reason of ["Timeout", "Transport"] as const) {
      expect(decisionOf(new BillsTransportError({ operation: "spotBills", reason, description: "" }))).toBe("retry")
    }
  })

  // A body that is not JSON is a gateway's page or a cut answer: another try may meet the
  // exchange. A JSON body of the wrong shape is the exchange's own answer and would come back the
  // same (issue 49: four identical requests followed a bare v2 futures page).
  it("a body that is not JSON is retried unless a 4xx says the request is wrong; a well-formed body is not", () => {
    const decode = (stage: "Json" | "Envelope" | "Data", status: number) =>
      decisionOf(
        new BillsDecodeError({ operation: "spotBills", status, stage, path: "", description: "", bodyExcerpt: "" })
      )
    expect(decode("Json", 200)).toBe("retry")
    expect(decode("Json", 408)).toBe("retry")
    expect(decode("Json", 404)).toBe("fail")
    expect(decode("Json", 403)).toBe("fail")
    expect(decode("Envelope", 200)).toBe("fail")
    expect(decode("Envelope", 502)).toBe("fail")
    expect(decode("Data", 200)).toBe("fail")
  })

  it("bad parameters and incomplete streams are never retried", () => {
    expect(decisionOf(new InvalidParams({ operation: "spotBills", field: "limit", rule: "" }))).toBe("fail")
    expect(decisionOf(new BillsIncomplete({ operation: "spotBills", description: "" }))).toBe("fail")
  })
})

describe("every DESIGN code through the whole client", () => {
  // Each code as an HTTP 200 envelope and as an HTTP 4xx envelope: the reason, and how many
  // requests the exchange saw (one, maxAttempts, or two with a clock sync between them).
  for (const [code, reason] of designCodes) {
    for (const status of [200, 400]) {
      it.effect(`code ${code} on HTTP ${status}`, () =>
        Effect.gen(function* () {
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          yield* exchange.setPermanentFault(FakeFault.Code({ status, code, msg: "scripted" }))
          const exit = yield* runOnTestClock(Effect.flip(api.fundingBills()))
          const error = yield* exit
          expect(error).toMatchObject({ _tag: "BillsApiError", code, reason, status, msg: "scripted" })
          const stats = yield* exchange.stats
          const decision = decisionOf(error)
          expect(stats.fundingBills.requests).toBe(decision === "retry" ? 4 : decision === "resync clock" ? 2 : 1)
          expect(stats.serverTimeRequests).toBe(decision === "resync clock" ? 1 : 0)
        }).pipe(Effect.provide(fakeStack({ config: { maxAttempts: 4, retryBaseDelay: Duration.millis(100) } })))
      )
    }
  }
})
