import { BillsApi } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { NodeBillsApi } from "../src/index.js"

const environment = (baseUrl: string | undefined) =>
  ConfigProvider.fromMap(
    new Map([
      ["WEEX_API_KEY", "k"],
      ["WEEX_API_SECRET", "s"],
      ["WEEX_API_PASSPHRASE", "p"],
      ...(baseUrl === undefined ? [] : [["WEEX_BASE_URL", baseUrl] as const])
    ])
  )

const build = (baseUrl: string | undefined) =>
  Layer.build(NodeBillsApi.layerConfig()).pipe(
    Effect.flatMap((context) => Effect.succeed(context.unsafeMap.has(BillsApi.key))),
    Effect.scoped,
    Effect.withConfigProvider(environment(baseUrl))
  )

describe("NodeBillsApi.layerConfig", () => {
  for (const url of ["http://example.com", "http://10.0.0.5:8080", "http://api-spot.weex.com"]) {
    it.effect(`refuses plain http to ${url}, where keys would cross a network in clear text`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(build(url))
        expect(String(error)).toContain("WEEX_BASE_URL")
        expect(String(error)).toContain("https")
      })
    )
  }

  for (const url of ["http://127.0.0.1:8080", "http://localhost:3000", "http://[::1]:9000", "https://example.com"]) {
    it.effect(`accepts ${url}`, () =>
      Effect.gen(function* () {
        expect(yield* build(url)).toBe(true)
      })
    )
  }

  it.effect("defaults to the exchange's https origin", () =>
    Effect.gen(function* () {
      expect(yield* build(undefined)).toBe(true)
    })
  )

  it.effect("refuses something that is not a URL", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build("not a url"))
      expect(String(error)).toContain("is not a URL")
    })
  )
})
