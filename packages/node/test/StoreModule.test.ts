/**
 * Loading what needs the store: a missing store or driver is one line that says what to install.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { importStore, storeInstallCommand } from "../src/cli/StoreModule.js"

const notFound = (specifier: string) =>
  Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/node_modules/x/chunk.js`), {
    code: "ERR_MODULE_NOT_FOUND"
  })

describe("importStore", () => {
  it.effect("a missing driver of the store: StoreNotInstalled, whose message gives the install command", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(importStore("sync", () => Promise.reject(notFound("@libsql/client"))))
      expect(error._tag).toBe("StoreNotInstalled")
      expect(error.message).toBe(
        `sync needs @account-bills/store (@libsql/client is not installed): ${storeInstallCommand}`
      )
    })
  )

  it.effect("another module missing, or another failure to load, is a defect, not a story about the store", () =>
    Effect.gen(function* () {
      for (const failure of [notFound("left-pad"), new Error("boom")]) {
        const exit = yield* Effect.exit(importStore("sync", () => Promise.reject(failure)))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      }
    })
  )

  it.effect("loads what is there", () =>
    Effect.gen(function* () {
      expect(yield* importStore("sync", () => Promise.resolve(42))).toBe(42)
    })
  )
})
