import { credentialsConfig } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

const read = (env: Record<string, string>) =>
  Effect.withConfigProvider(credentialsConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("credentials from the environment", () => {
  it.effect("an empty variable counts as missing: nothing is sent for the exchange to refuse", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        read({ WEEX_API_KEY: "", WEEX_API_SECRET: "secret", WEEX_API_PASSPHRASE: "pass" })
      )
      expect(ConfigError.isMissingData(error)).toBe(true)
      expect(error._op === "MissingData" ? error.path : []).toEqual(["WEEX_API_KEY"])
      const set = yield* read({ WEEX_API_KEY: "key", WEEX_API_SECRET: "secret", WEEX_API_PASSPHRASE: "pass" })
      expect(Redacted.value(set.apiKey)).toBe("key")
    })
  )
})
