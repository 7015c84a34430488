/**
 * The journals' figures (issue 37): exporting 100,000 bills from a store to each journal format
 * takes at most 2 x the same `--format csv` export from the store, and hledger, Ledger and
 * Beancount accept the 100,000-bill journals with every assertion on (each tool timed). The store
 * is synced from a local exchange of linked bills (trades as two legs, transfers with both legs)
 * with no rate limit; the exports run in process, the way `bills export --db` runs them.
 * Run by bench/run.ts as section 14 (`--only journals`).
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { Journal } from "@account-bills/books"
import * as Effect from "effect/Effect"
import { journalExport } from "../packages/node/src/cli/JournalExport.js"
import { type Timing, withStoreExports } from "./storeExports.js"

export interface JournalFigures {
  readonly bills: number
  readonly csv: Timing
  readonly formats: ReadonlyArray<readonly [Journal.JournalFormat, Timing]>
  /** Each tool on its journal: seconds, and whether it accepted it (undefined: not installed). */
  readonly tools: ReadonlyArray<{ readonly tool: string; readonly seconds: number; readonly ok: boolean | undefined }>
}

const toolCommands: Readonly<
  Record<Journal.JournalFormat, readonly [string, (file: string) => ReadonlyArray<string>]>
> = {
  hledger: ["hledger", (file) => ["-f", file, "check", "--strict"]],
  ledger: ["ledger", (file) => ["-f", file, "--pedantic", "balance", "--flat", "--no-total"]],
  beancount: ["bean-check", (file) => [file]]
}

/** Syncs `bills` linked bills into a fresh SQLite store, times csv and each format in turn (median of `runs`), then each tool. */
export const journalBench = (bills: number, runs = 3): Promise<JournalFigures> =>
  withStoreExports({ bills, seed: 37, runs, name: "journals" }, ({ dir, fromStore, turns }) =>
    Effect.gen(function* () {
      const export_ = (format: Journal.JournalFormat, out: string) =>
        journalExport({ format, account: "all", out, strict: false, accountNames: {}, quiet: true })
      const { csv, exports } = yield* turns(
        Journal.JournalFormat.literals.map((format) => [format, export_(format, "/dev/null")] as const)
      )
      const tools: Array<{ tool: string; seconds: number; ok: boolean | undefined }> = []
      for (const format of Journal.JournalFormat.literals) {
        const file = join(dir, `bills.${format}`)
        yield* fromStore(export_(format, file))
        const [command, args] = toolCommands[format]
        const started = performance.now()
        const run = spawnSync(command, args(file), { encoding: "utf8", maxBuffer: 1 << 30 })
        tools.push({
          tool: `${command} ${args("FILE").join(" ")}`,
          seconds: (performance.now() - started) / 1000,
          ok: run.error !== undefined ? undefined : run.status === 0 && run.stderr.trim() === ""
        })
      }
      return { bills, csv, formats: exports, tools }
    })
  )
