/**
 * The store's figures: requests a later sync needs for 1,000 new bills per account (goal: at
 * most ⌈1000/100⌉ + 2 = 12, as a fleet's pass), and the time of a first sync into SQLite beside
 * an export of the same pages to nowhere, both under the exchange's rate limit (10 requests per
 * second per operation), which is what decides a user's time. Run by bench/run.ts as section 8.
 */
import { rmSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BillsApi } from "@account-bills/core"
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

export interface SyncFigures {
  readonly bills: { readonly funding: number; readonly spot: number }
  readonly exportSeconds: number
  readonly firstSyncSeconds: number
  /** Requests per account of the sync after 1,000 new bills each. */
  readonly incremental: { readonly funding: number; readonly spot: number; readonly added: number }
  /** Requests per account of a sync with nothing new. */
  readonly idle: { readonly funding: number; readonly spot: number }
  /** Requests the exchange answered 429, over the export and the syncs. */
  readonly rateLimited: number
}

const seconds = (since: number) => (performance.now() - since) / 1000

/** Runs the store bench; `bills` per account kind. */
export const syncBench = (bills: number): Promise<SyncFigures> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const server = yield* FakeExchangeServer.make({
        generate: { seed: 7, funding: bills, spot: bills, sameMillisecondGroup: { every: 40, size: 5 } }
      })
      const api = NodeBillsApi.layer(credentials, { config: { baseUrl: server.url } })
      const dir = mkdtempSync(join(tmpdir(), "account-bills-bench-store-"))
      const store = StoreLayer.layerFrom(join(dir, "bills.sqlite"))
      const account = StoreAccount.make(credentials.apiKey, "bench")
      const requests = Effect.map(server.exchange.stats, (s) => ({
        funding: s.fundingBills.requests,
        spot: s.spotBills.requests
      }))

      let started = performance.now()
      yield* Effect.gen(function* () {
        const client = yield* BillsApi
        yield* Effect.all([Stream.runDrain(client.streamFundingPages()), Stream.runDrain(client.streamSpotPages())], {
          concurrency: 2
        })
      }).pipe(Effect.provide(api))
      const exportSeconds = seconds(started)

      // The syncs share one client, as in a process that syncs again and again: one limiter, which
      // knows the requests of the sync before (a fresh one would burst into their window and
      // meet 429s, each a request more). The export had its own client, which knows nothing of its
      // requests still in the exchange's window: let that window pass, so the sync starts as it did.
      const syncApi = yield* Layer.memoize(api)
      const sync = Sync.run({ account }).pipe(Effect.provide(syncApi), Effect.provide(store))
      yield* Effect.sleep("1100 millis")
      started = performance.now()
      yield* sync
      const firstSyncSeconds = seconds(started)

      const now = yield* server.exchange.serverTime
      for (const kind of ["funding", "spot"] as const) {
        yield* server.exchange.appendGenerated(kind, 1_000, { startMillis: now - 30_000, endMillis: now - 1_000 })
      }
      const before = yield* requests
      const summaries = yield* sync
      const after = yield* requests
      yield* sync
      const last = yield* requests
      const stats = yield* server.exchange.stats
      rmSync(dir, { recursive: true, force: true })
      return {
        bills: { funding: bills, spot: bills },
        exportSeconds,
        firstSyncSeconds,
        incremental: {
          funding: after.funding - before.funding,
          spot: after.spot - before.spot,
          added: summaries.reduce((sum, s) => sum + s.added, 0)
        },
        idle: { funding: last.funding - after.funding, spot: last.spot - after.spot },
        rateLimited: stats.fundingBills.rateLimited + stats.spotBills.rateLimited
      }
    }).pipe(Effect.scoped)
  )
