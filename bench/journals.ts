/**
 * The journals' figures (issue 37): exporting 100,000 bills from a store to each journal format
 * takes at most 2 x the same `--format csv` export from the store, and hledger, Ledger and
 * Beancount accept the 100,000-bill journals with every assertion on (each tool timed). The store
 * is synced from a local exchange of linked bills (trades as two legs, transfers with both legs)
 * with no rate limit; the exports run in process, the way `bills export --db` runs them.
 * Run by bench/run.ts as section 13 (`--only journals`).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Journal } from "@account-bills/core"
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreBillsApi, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { exportBills } from "../packages/node/src/cli/ExportBills.js"
import { journalExport } from "../packages/node/src/cli/JournalExport.js"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

export interface JournalFigures {
  readonly bills: number
  readonly csvSeconds: number
  readonly formats: ReadonlyArray<{ readonly format: Journal.JournalFormat; readonly seconds: number }>
  /** Each tool on its journal: seconds, and whether it accepted it (undefined: not installed). */
  readonly tools: ReadonlyArray<{ readonly tool: string; readonly seconds: number; readonly ok: boolean | undefined }>
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const toolCommands: Readonly<
  Record<Journal.JournalFormat, readonly [string, (file: string) => ReadonlyArray<string>]>
> = {
  hledger: ["hledger", (file) => ["-f", file, "check", "--strict"]],
  ledger: ["ledger", (file) => ["-f", file, "--pedantic", "balance", "--flat", "--no-total"]],
  beancount: ["bean-check", (file) => [file]]
}

/** Syncs `bills` linked bills into a fresh SQLite store, times each export (median of `runs`), then each tool. */
export const journalBench = (bills: number, runs = 3): Promise<JournalFigures> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const server = yield* FakeExchangeServer.make({
        rateLimit: false,
        generate: { seed: 37, funding: Math.round(bills * 0.4), spot: bills - Math.round(bills * 0.4), linked: true }
      })
      const dir = mkdtempSync(join(tmpdir(), "account-bills-bench-journals-"))
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
      const formats: Array<{ format: Journal.JournalFormat; seconds: number }> = []
      const tools: Array<{ tool: string; seconds: number; ok: boolean | undefined }> = []
      for (const format of Journal.JournalFormat.literals) {
        const export_ = (out: string) =>
          fromStore(journalExport({ format, account: "all", out, strict: false, accountNames: {}, quiet: true }))
        formats.push({ format, seconds: yield* timed(export_("/dev/null")) })
        const file = join(dir, `bills.${format}`)
        yield* export_(file)
        const [command, args] = toolCommands[format]
        const started = performance.now()
        const run = spawnSync(command, args(file), { encoding: "utf8", maxBuffer: 1 << 30 })
        tools.push({
          tool: `${command} ${args("FILE").join(" ")}`,
          seconds: (performance.now() - started) / 1000,
          ok: run.error !== undefined ? undefined : run.status === 0 && run.stderr.trim() === ""
        })
      }
      rmSync(dir, { recursive: true, force: true })
      return { bills, csvSeconds, formats, tools }
    }).pipe(Effect.scoped)
  )
