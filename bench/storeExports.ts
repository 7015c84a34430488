/**
 * The harness the exports built on events share (tax files, journals): a fresh SQLite store synced
 * from a local exchange of linked bills (trades as two legs, transfers with both legs) with no
 * rate limit, the `--format csv` export from it as the yardstick, and a timer (median of runs).
 * The exports run in process, the way `bills export --db` runs them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BillsApi } from "@account-bills/core"
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreBillsApi, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { exportBills } from "../packages/node/src/cli/ExportBills.js"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** What a bench gets: the store's folder, the store as a `BillsApi`, a timer, and the csv yardstick. */
export interface StoreExports {
  readonly dir: string
  readonly fromStore: <A, E>(effect: Effect.Effect<A, E, BillsApi>) => Effect.Effect<A, unknown>
  readonly timed: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<number, E, R>
  readonly csvSeconds: number
}

/** Syncs `bills` linked bills (seed `seed`) into a fresh store, times the csv export, runs `use`, removes the store. */
export const withStoreExports = <A>(
  options: { readonly bills: number; readonly seed: number; readonly runs: number; readonly name: string },
  use: (exports: StoreExports) => Effect.Effect<A, unknown>
): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { bills, runs } = options
      const server = yield* FakeExchangeServer.make({
        rateLimit: false,
        generate: {
          seed: options.seed,
          funding: Math.round(bills * 0.4),
          spot: bills - Math.round(bills * 0.4),
          linked: true
        }
      })
      const dir = mkdtempSync(join(tmpdir(), `account-bills-bench-${options.name}-`))
      const store = StoreLayer.layerFrom(join(dir, "bills.sqlite"))
      const account = StoreAccount.make(credentials.apiKey, "bench")
      yield* Sync.run({ account }).pipe(
        Effect.provide(NodeBillsApi.layer(credentials, { config: { baseUrl: server.url } })),
        Effect.provide(store)
      )
      const fromStore = <B, E>(effect: Effect.Effect<B, E, BillsApi>) =>
        effect.pipe(Effect.provide(StoreBillsApi.layer(account.id)), Effect.provide(store))
      const timed = <B, E, R>(effect: Effect.Effect<B, E, R>) =>
        Effect.gen(function* () {
          const times: Array<number> = []
          for (let i = 0; i < runs; i++) {
            const started = performance.now()
            yield* effect
            times.push((performance.now() - started) / 1000)
          }
          return median(times)
        })
      const csvSeconds = yield* timed(
        fromStore(
          exportBills(
            { account: "all", format: "csv", out: "/dev/null" },
            { live: false, requests: () => Effect.succeed(0) }
          )
        )
      )
      const result = yield* use({ dir, fromStore, timed, csvSeconds })
      rmSync(dir, { recursive: true, force: true })
      return result
    }).pipe(Effect.scoped)
  )
