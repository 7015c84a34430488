/**
 * A client set for one interface version against an exchange that serves the other: the
 * exchange answers the client's path with HTTP 404 and its gateway's `{"code":"40404","msg":
 * "Request URL NOT FOUND"}` (a v2-shaped body, whichever version asked), and the failure names
 * the path, the base URL and WEEX_API_VERSION as the likely cause, on both operations, in both
 * directions, through the real pipeline, with one request each (a 404 is not retried).
 */
import { BillsApi } from "@account-bills/core"
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

for (const [client, exchange] of [
  ["v2", "v3"],
  ["v3", "v2"]
] as const) {
  describe(`a ${client} client against a ${exchange} exchange`, () => {
    it.effect("fails at once with NotFound, naming the path, the base URL and WEEX_API_VERSION", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const paths = { fundingBills: "/account/fundingBills", spotBills: "/account/bills" } as const
        for (const [operation, call] of [
          ["fundingBills", Effect.asVoid(api.fundingBills())],
          ["spotBills", Effect.asVoid(api.spotBills())]
        ] as const) {
          const error = yield* Effect.flip(call)
          expect(error).toMatchObject({
            _tag: "BillsApiError",
            reason: "NotFound",
            status: 404,
            code: "40404",
            msg: "Request URL NOT FOUND"
          })
          expect(error.message).toBe(
            `${operation}: the exchange has no /api/${client}${paths[operation]} at https://fake-exchange.test (HTTP 404, code 40404: Request URL NOT FOUND): the likely cause is WEEX_API_VERSION (apiVersion) naming another interface version than the exchange serves there (v2 or v3), or WEEX_BASE_URL (baseUrl) pointing elsewhere`
          )
        }
        const stats = yield* (yield* FakeExchange).stats
        expect(stats.requests).toBe(2)
      }).pipe(
        Effect.provide(
          TestBillsApi.layerStack({
            exchange: { apiVersion: exchange, generate: { seed: 3, funding: 5, spot: 5 } },
            config: { apiVersion: client }
          })
        )
      )
    )
  })
}
