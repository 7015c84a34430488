/**
 * The tax files' figure: exporting 100,000 bills from a store to each tax tool's format takes at
 * most 2 x the same `--format csv` export from the store (goal of issue 34). The store is synced
 * from a local exchange with linked bills (trades as two legs, transfers with both legs) and no
 * rate limit; each export writes to /dev/null, in process, the way `bills export --db` runs it.
 * Run by bench/run.ts as section 12 (`--only tax`).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TaxFiles } from "@account-bills/core"
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreBillsApi, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { exportBills } from "../packages/node/src/cli/ExportBills.js"
import { taxExport } from "../packages/node/src/cli/TaxExport.js"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

export interface TaxFigures {
  readonly bills: number
  readonly csvSeconds: number
  readonly formats: ReadonlyArray<{ readonly format: TaxFiles.TaxFormat; readonly seconds: number }>
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** Syncs `bills` linked bills into a fresh SQLite store, then times each export (median of `runs`). */
export const taxBench = (bills: number, runs = 3): Promise<TaxFigures> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const server = yield* FakeExchangeServer.make({
        rateLimit: false,
        generate: { seed: 34, funding: Math.round(bills * 0.4), spot: bills - Math.round(bills * 0.4), linked: true }
      })
      const dir = mkdtempSync(join(tmpdir(), "account-bills-bench-tax-"))
      const store = StoreLayer.layerFrom(join(dir, "bills.sqlite"))
      const account = StoreAccount.make(credentials.apiKey, "bench")
      yield* Sync.run({ account }).pipe(
        Effect.provide(NodeBillsApi.layer(credentials, { config: { baseUrl: server.url } })),
        Effect.provide(store)
      )
      const fromStore = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(Effect.provide(StoreBillsApi.layer(account.id)), Effect.provide(store))
      const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
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
      const formats: Array<{ format: TaxFiles.TaxFormat; seconds: number }> = []
      for (const format of TaxFiles.taxFormats) {
        const seconds = yield* timed(fromStore(taxExport({ format, account: "all", out: "/dev/null", strict: false })))
        formats.push({ format, seconds })
      }
      rmSync(dir, { recursive: true, force: true })
      return { bills, csvSeconds, formats }
    }).pipe(Effect.scoped)
  )
