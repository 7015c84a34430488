/**
 * `--db PATH|URL`: read bills from a store instead of the exchange, offline. The stored
 * account is the one of WEEX_API_KEY when it is set, else the store's only account.
 *
 * @since 0.1.0
 */
import { StoreBillsApi, StoreLayer } from "@account-bills/store"
import * as Options from "@effect/cli/Options"
import type { BillsApi } from "@account-bills/core"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * The optional `--db` flag of `export` and `audit`.
 *
 * @since 0.1.0
 */
export const dbFlag = Options.text("db").pipe(
  Options.withDescription("read from this store (SQLite file or postgres:// URL) instead of the exchange, offline"),
  Options.optional
)

/**
 * Runs `effect` with `BillsApi` answered from the store at `db`; the store's failures, even
 * those met while reading, fail it with their own typed error.
 *
 * @since 0.1.0
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
