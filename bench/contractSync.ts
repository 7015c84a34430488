/**
 * The futures account kept in a store (bench/run.ts section 12, `--only contract`): the requests a
 * first sync of the contract kind costs per 100 bills kept (goal <= 1.05), at the fleet's one page
 * at a time and at `bills sync`'s default concurrency, and the requests of the sync after it when
 * nothing is new (goal 1: one request finds nothing and ends the walk). Counted by the exchange,
 * under its rate limit, on v2 and v3.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

/** One first sync of the contract kind, then one with nothing new. */
export interface ContractSyncRow {
  /**
   * Pages per run: undefined for one run to the end; N for a first sync cut every N pages and run
   * again until it is done (as fleet passes bounded by --pages-per-pass, a restart or a hand-over
   * resume it from the store's last committed page).
   */
  readonly maxPages?: number | undefined
  /** Runs the first sync took (1 without `maxPages`). */
  readonly runs?: number | undefined
  readonly apiVersion: "v2" | "v3"
  /** Requests in flight: 1 as a fleet pass, undefined for the library's default as `bills sync`. */
  readonly concurrency: number | undefined
  readonly bills: number
  readonly kept: number
  readonly firstRequests: number
  readonly idleRequests: number
  readonly rateLimited: number
}

const measure = (apiVersion: "v2" | "v3", concurrency: number | undefined, bills: number, maxPages?: number) =>
  Effect.gen(function* () {
    const server = yield* FakeExchangeServer.make({
      apiVersion,
      generate: { seed: 33, funding: 0, spot: 0, contract: bills, sameMillisecondGroup: { every: 40, size: 5 } }
    })
    const dir = mkdtempSync(join(tmpdir(), "account-bills-bench-contract-"))
    const store = StoreLayer.layerFrom(join(dir, "bills.sqlite"))
    const api = yield* Layer.memoize(
      NodeBillsApi.layer(credentials, { config: { baseUrl: server.url, contractBaseUrl: server.url, apiVersion } })
    )
    const account = StoreAccount.make(credentials.apiKey, "bench")
    const requests = Effect.map(server.exchange.stats, (stats) => stats.contractBills.requests)
    const syncOf = (pages: number | undefined) =>
      Sync.run({ account, kinds: ["contract"], concurrency, maxPages: pages }).pipe(
        Effect.provide(api),
        Effect.provide(store)
      )
    const sync = syncOf(undefined)
    let [first] = yield* syncOf(maxPages)
    let runs = 1
    while (first !== undefined && !first.done && runs < 1_000) {
      ;[first] = yield* syncOf(maxPages)
      runs++
    }
    const afterFirst = yield* requests
    yield* sync
    const afterIdle = yield* requests
    const stats = yield* server.exchange.stats
    rmSync(dir, { recursive: true, force: true })
    return {
      apiVersion,
      concurrency,
      maxPages,
      runs,
      bills,
      kept: first?.stored ?? 0,
      firstRequests: afterFirst,
      idleRequests: afterIdle - afterFirst,
      rateLimited: stats.contractBills.rateLimited
    } satisfies ContractSyncRow
  }).pipe(Effect.scoped)

/**
 * Every case: v2 and v3, one page at a time and the default concurrency, over `bills`; then, one
 * page at a time, an empty history (nothing says where it starts: one request per 100 days back to
 * the interface's opening) and the same cut every 5 pages (issue 52, section 4).
 */
export const contractSyncBench = (bills: number): Promise<ReadonlyArray<ContractSyncRow>> =>
  Effect.runPromise(
    Effect.forEach(
      [
        ...(["v2", "v3"] as const).flatMap((apiVersion) =>
          ([1, undefined] as const).map((concurrency) => ({ apiVersion, concurrency, bills, maxPages: undefined }))
        ),
        ...(["v2", "v3"] as const).flatMap((apiVersion) =>
          ([undefined, 5] as const).map((maxPages) => ({ apiVersion, concurrency: 1, bills: 0, maxPages }))
        ),
        { apiVersion: "v2" as const, concurrency: 1, bills, maxPages: 5 }
      ],
      (each) => measure(each.apiVersion, each.concurrency, each.bills, each.maxPages)
    )
  )
