/**
 * Where contract calls go when no contract base URL is given: the exchange's contract host, unless
 * the base URL points away from the exchange (a proxy, the local fake), which then takes them too.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { BillsConfig } from "../../src/BillsConfig.js"

const contractOf = (input: Parameters<typeof BillsConfig.make>[0]) =>
  Effect.map(BillsConfig.make(input), (config) => config.contractBaseUrl)

describe("BillsConfig.contractBaseUrl", () => {
  it.effect("defaults to the exchange's contract host, also beside the exchange's own spot host", () =>
    Effect.gen(function* () {
      expect(yield* contractOf({})).toBe("https://api-contract.weex.com")
      expect(yield* contractOf({ baseUrl: "https://api-spot.weex.com" })).toBe("https://api-contract.weex.com")
    })
  )

  it.effect("follows a base URL away from the exchange, unless given its own", () =>
    Effect.gen(function* () {
      expect(yield* contractOf({ baseUrl: "http://127.0.0.1:4321" })).toBe("http://127.0.0.1:4321")
      expect(yield* contractOf({ baseUrl: "https://proxy.internal/weex" })).toBe("https://proxy.internal/weex")
      expect(yield* contractOf({ baseUrl: "http://127.0.0.1:4321", contractBaseUrl: "http://127.0.0.1:9" })).toBe(
        "http://127.0.0.1:9"
      )
    })
  )
})
