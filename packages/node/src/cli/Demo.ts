/**
 * `pnpm demo`: the main job with no account and no network. Starts the local exchange on
 * loopback with a year of a trader's account (the testing kit's `TraderAccount`: deposits, spot
 * trades as two legs, transfers between the three accounts, futures fees, funding and profit or
 * loss, withdrawals), exports the three accounts (funding, spot, futures) from it over real HTTP
 * under the real rate limit, checks the exports against the exchange's own records, and prints a
 * summary per account and coin. Then keeps the history: syncs the three accounts into a SQLite
 * file, adds bills on the exchange, syncs again with a handful of requests, and audits from the
 * store offline. Then the files for Koinly, CoinTracking and BittyTax and the journals, from a
 * smaller trader's year, and last the `bills view` command that shows the store.
 *
 * @since 0.1.0
 */
import type { Credentials } from "@account-bills/core"
import { TaxFiles } from "@account-bills/books"
import { FakeExchange, type FakeExchangeOptions, TraderAccount } from "@account-bills/core/testing"
import { StoreAccount, StoreBillsApi, StoreLayer, Sync } from "@account-bills/store"
import * as Clock from "effect/Clock"
import * as Schema from "effect/Schema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FakeExchangeServer, type FakeExchangeServerService } from "../FakeExchangeServer.js"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { runAudit } from "./AuditRun.js"
import { plain } from "./CoinSummary.js"
import { demoBooks } from "./DemoBooks.js"
import { countingUndici } from "./ExportRun.js"
import { type AccountSummary, exportBills } from "./ExportBills.js"
import { taxExport } from "./TaxExport.js"

/**
 * An export that does not match the exchange's own records.
 *
 * @since 0.1.0
 * @category errors
 */
export class DemoMismatch extends Schema.TaggedError<DemoMismatch>("@account-bills/node/DemoMismatch")("DemoMismatch", {
  account: Schema.Literal("funding", "spot", "contract", "all"),
  lines: Schema.Number,
  bills: Schema.Number
}) {
  override get message(): string {
    return `the ${this.account} export differs from the exchange: ${this.lines} lines written, ${this.bills} bills held`
  }
}

/**
 * What the demo's exchange holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface DemoOptions {
  readonly funding: number
  readonly spot: number
  /** Bills of the futures account (since 0.2.0). */
  readonly contract: number
  readonly seed: number
  /** Where the exports go; a fresh temporary folder by default. */
  readonly outDir?: string
  /**
   * `"trader"` (the default): a year of `TraderAccount`, exactly these counts; `"random"`: the
   * generator's random bills over 90 days with same-millisecond groups (the demo before 0.3.0),
   * whose futures history is its own and `contract` bills more. Since 0.3.0.
   */
  readonly bills?: "trader" | "random" | undefined
}

/**
 * The demo's defaults: a trader's year of 2,000 funding, 6,000 spot and 3,000 futures bills.
 *
 * @since 0.1.0
 * @category utils
 */
export const demoDefaults: DemoOptions = { funding: 2_000, spot: 6_000, contract: 3_000, seed: 20_240_501 }

/**
 * What the demo leaves: the summaries it printed and the store it synced.
 *
 * @since 0.3.0
 * @category models
 */
export interface DemoResult {
  readonly summaries: ReadonlyArray<AccountSummary>
  /** The SQLite file `bills view --db` shows. */
  readonly db: string
}

const day = 86_400_000

const table = (summaries: ReadonlyArray<AccountSummary>): string => {
  const rows = [["account", "coin", "bills", "net change", "first balance", "last balance"]]
  for (const summary of summaries) {
    for (const coin of summary.coins) {
      rows.push([
        summary.account,
        coin.coinName,
        String(coin.bills),
        plain(coin.netChange),
        coin.firstBalance,
        coin.lastBalance
      ])
    }
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? []
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join("  ")
    )
    .join("\n")
}

/**
 * The store part: syncs the three accounts into a SQLite file, adds bills on the exchange, syncs
 * again (printing how few requests that took), then audits from the store, offline.
 */
const keepHistory = (
  server: FakeExchangeServerService,
  credentials: Credentials,
  db: string,
  trader: TraderAccount.TraderAccount | undefined
) =>
  Effect.gen(function* () {
    const account = StoreAccount.make(credentials.apiKey, "demo")
    const sync = Effect.gen(function* () {
      const http = yield* countingUndici
      return yield* Sync.run({ account }).pipe(
        Effect.provide(
          NodeBillsApi.layer(credentials, {
            config: { baseUrl: server.url, contractBaseUrl: server.url },
            httpClient: http.layer
          })
        )
      )
    })
    const store = StoreLayer.layerFrom(db)
    const line = (label: string, summaries: ReadonlyArray<Sync.SyncSummary>) =>
      `${label}: ${summaries.map((s) => `${s.kind} ${s.added} new bills in ${s.pages} requests`).join(", ")}\n`
    process.stdout.write(line(`first sync into ${db}`, yield* Effect.provide(sync, store)))
    const now = yield* server.exchange.serverTime
    // Within the sync's overlap (60 s) before now, so the second sync reads them.
    const window = { startMillis: now - 59_000, endMillis: now - 1_000 }
    if (trader === undefined) {
      for (const kind of ["funding", "spot"] as const) yield* server.exchange.appendGenerated(kind, 1_000, window)
    } else {
      const more = trader.generate({ funding: 1_000, spot: 1_000, contract: 1_000, ...window })
      yield* server.exchange.append("funding", more.funding)
      yield* server.exchange.append("spot", more.spot)
      yield* server.exchange.appendContract(more.contract)
    }
    process.stdout.write(line("1,000 new bills per account, second sync", yield* Effect.provide(sync, store)))
    process.stdout.write("audit from the store, offline:\n")
    yield* runAudit({ account: "all" }).pipe(Effect.provide(Layer.provide(StoreBillsApi.layer(account.id), store)))
  })

/** The smaller trader's year the tax files and journals are written from. */
const booksCounts = { funding: 300, spot: 900, contract: 400 } as const

/**
 * The files for the three tax tools and the journals, from a smaller trader's year on an exchange
 * of its own with no rate limit: the same six exports over the store's 14,000 bills (and the tools
 * over 10,000 transactions) took about 40 s more when tried. The flagged events are listed once,
 * for the first file; the others count them.
 */
const books = (credentials: Credentials, outDir: string, seed: number, endMillis: number) =>
  Effect.gen(function* () {
    const server = yield* FakeExchangeServer.make({
      rateLimit: false,
      bills: TraderAccount.ofYear({ seed, ...booksCounts, endMillis })
    })
    // The local exchange sets no limit here, so neither does the client.
    const bills = NodeBillsApi.layer(credentials, {
      config: { baseUrl: server.url, contractBaseUrl: server.url },
      rateLimit: { limit: 1_000 }
    })
    process.stdout.write(
      `files for tax tools, from a smaller trader's year (${booksCounts.funding} funding, ${booksCounts.spot} spot, ${booksCounts.contract} futures bills):\n`
    )
    for (const [index, format] of TaxFiles.taxFormats.entries()) {
      const out = path.join(outDir, `weex-${format}.csv`)
      yield* taxExport({ format, account: "all", out, strict: false, quiet: index > 0 }).pipe(Effect.provide(bills))
      process.stdout.write(`  ${format}: ${out}\n`)
    }
    yield* demoBooks(bills, outDir)
  }).pipe(Effect.scoped)

/**
 * Runs the demo and returns the summaries; fails if an export differs from the exchange.
 *
 * @since 0.1.0
 * @category utils
 */
export const runDemo = (options: DemoOptions = demoDefaults) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // The year ends before the second sync's bills begin (see keepHistory).
    const end = now - 2 * 60_000
    const trader = options.bills === "random" ? undefined : TraderAccount.make({ seed: options.seed })
    const bills: FakeExchangeOptions =
      trader === undefined
        ? {
            generate: {
              seed: options.seed,
              funding: options.funding,
              spot: options.spot,
              contract: options.contract,
              sameMillisecondGroup: { every: 40, size: 5 }
            }
          }
        : {
            bills: trader.generate({
              funding: options.funding,
              spot: options.spot,
              contract: options.contract,
              startMillis: end - 365 * day,
              endMillis: end
            })
          }
    const server = yield* FakeExchangeServer.make(bills)
    const outDir = options.outDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-demo-"))
    process.stderr.write(`local exchange at ${server.url}; exporting to ${outDir}\n`)
    const credentials = {
      apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
      secret: Redacted.make(FakeExchange.defaultCredentials.secret),
      passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
    }
    // The three accounts at once, as `bills export --account all` does: one file, each line a raw
    // record with its account in front.
    const http = yield* countingUndici
    const out = path.join(outDir, "all.ndjson")
    const summary = yield* exportBills(
      { account: "all", format: "ndjson", out },
      { live: process.stderr.isTTY === true, requests: http.requestsOf }
    ).pipe(
      Effect.provide(
        NodeBillsApi.layer(credentials, {
          config: { baseUrl: server.url, contractBaseUrl: server.url },
          httpClient: http.layer
        })
      )
    )
    const written = fs
      .readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .filter((text) => text !== "")
    // The futures account's records go out under the interface's own names (v2 or v3): each line
    // is matched to the exchange's record by id, its amounts by text.
    const contractLines = written
      .filter((text) => text.startsWith('{"account":"contract",'))
      .map((text): Record<string, unknown> => JSON.parse(text))
    const contractHeld = new Map((yield* server.exchange.contractBills).map((bill) => [bill.billId, bill]))
    const contractIds = new Set(contractLines.map((record) => String(record.billId)))
    const contractExact = contractLines.every((record) => {
      const bill = contractHeld.get(String(record.billId))
      return (
        bill !== undefined &&
        String(record.income ?? record.amount) === bill.deltaAmount &&
        String(record.balance) === bill.afterAmount
      )
    })
    if (contractLines.length !== contractHeld.size || contractIds.size !== contractLines.length || !contractExact) {
      return yield* new DemoMismatch({ account: "contract", lines: contractLines.length, bills: contractHeld.size })
    }
    for (const account of ["funding", "spot"] as const) {
      const expected = yield* server.exchange.bills(account)
      // The line the exchange's record makes with the tag written in front, by text, apart from
      // the writer's own code.
      const exact = new Set(expected.map((bill) => `{"account":"${account}",${JSON.stringify(bill).slice(1)}`))
      const mine = written.filter((text) => text.startsWith(`{"account":"${account}",`))
      const seen = new Set(mine)
      if (mine.length !== expected.length || seen.size !== mine.length || mine.some((text) => !exact.has(text))) {
        return yield* new DemoMismatch({ account, lines: mine.length, bills: expected.length })
      }
    }
    const held = summary.accounts.reduce((sum, s) => sum + s.bills, 0)
    if (written.length !== held) {
      return yield* new DemoMismatch({ account: "all", lines: written.length, bills: held })
    }
    const summaries = summary.accounts
    process.stdout.write(`${table(summaries)}\n`)
    process.stdout.write(`every bill exported exactly once, field for field (checked against the exchange)\n`)
    const db = path.join(outDir, "bills.sqlite")
    yield* keepHistory(server, credentials, db, trader)
    // A seed whose year holds a couple of `system_issued` bills, so the demo shows how a type no
    // filter lists is flagged (once).
    yield* books(credentials, outDir, options.seed + 5, end)
    process.stdout.write(`see it: pnpm bills view --db ${db} --open   (pnpm demo --view opens it at the end)\n`)
    return { summaries, db } satisfies DemoResult
  }).pipe(Effect.scoped)
