/**
 * A client set for one interface version against an exchange that serves the other: the
 * failure says which version answered and names WEEX_API_VERSION, on both operations, in both
 * directions, through the real pipeline.
 */
import { BillsApi } from "@account-bills/core"
import { TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

for (const [client, exchange] of [
  ["v2", "v3"],
  ["v3", "v2"]
] as const) {
  describe(`a ${client} client against a ${exchange} exchange`, () => {
    it.effect("fails at once, saying the exchange answered as the other version and naming WEEX_API_VERSION", () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        for (const call of [Effect.asVoid(api.fundingBills()), Effect.asVoid(api.spotBills())]) {
          const error = yield* Effect.flip(call)
          expect(error._tag).toBe("BillsDecodeError")
          expect(error.message).toContain(`the exchange answered as its ${exchange} interface`)
          expect(error.message).toContain(`WEEX_API_VERSION=${exchange}`)
        }
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
