/**
 * Runs a `BillsApi` program against a store instead of the exchange. The stored account is the
 * one of WEEX_API_KEY when it is set, else the store's only account. Loaded only when `--db` is
 * given.
 *
 * @since 0.1.0
 */
import type { BillsApi } from "@account-bills/core"
import { StoreBillsApi, StoreLayer } from "@account-bills/store"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * Runs `effect` with `BillsApi` answered from the store at `db`; the store's failures, even
 * those met while reading, fail it with their own typed error.
 *
 * @since 0.1.0
 * @category utils
 */
export const fromStore =
  (db: string) =>
  <A, E>(effect: Effect.Effect<A, E, BillsApi>) =>
    Effect.gen(function* () {
      const apiKey = yield* Config.option(Config.redacted("WEEX_API_KEY"))
      const api = StoreBillsApi.layerFor({ apiKey: Option.getOrUndefined(apiKey) }).pipe(
        Layer.provide(StoreLayer.layerFrom(db))
      )
      return yield* StoreBillsApi.catchStoreDefects(Effect.provide(effect, api))
    })
