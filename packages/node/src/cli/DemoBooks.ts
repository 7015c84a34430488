/**
 * The demo's books step: a trader's account (trades with both legs, transfers between the three
 * accounts), exported as journals for hledger, Ledger and Beancount, each then
 * checked by its tool where the tool is installed (`hledger check --strict`, `ledger --pedantic
 * balance`, `bean-check`), every balance the exchange reported asserted.
 *
 * @since 0.2.0
 */
import type { BillsApi } from "@account-bills/core"
import type { Journal } from "@account-bills/books"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { journalExport } from "./JournalExport.js"

const checks: ReadonlyArray<{
  readonly format: Journal.JournalFormat
  readonly command: string
  readonly args: (file: string) => ReadonlyArray<string>
}> = [
  { format: "hledger", command: "hledger", args: (file) => ["-f", file, "check", "--strict"] },
  { format: "ledger", command: "ledger", args: (file) => ["-f", file, "--pedantic", "balance", "--flat"] },
  { format: "beancount", command: "bean-check", args: (file) => [file] }
]

/**
 * Writes the three journals into `outDir` and runs whichever tools are installed on them.
 *
 * @since 0.2.0
 * @category utils
 */
export const demoBooks = <E>(bills: Layer.Layer<BillsApi, E>, outDir: string) =>
  Effect.gen(function* () {
    process.stdout.write("books: journals of the same year, checked by the tools:\n")
    for (const { args, command, format } of checks) {
      const out = path.join(
        outDir,
        `bills.${format === "beancount" ? "beancount" : format === "ledger" ? "ledger" : "journal"}`
      )
      const journal = yield* journalExport({
        format,
        account: "all",
        out,
        strict: false,
        accountNames: {},
        quiet: true
      }).pipe(Effect.provide(bills))
      const run = spawnSync(command, args(out), { encoding: "utf8", maxBuffer: 1 << 28 })
      const verdict =
        run.error !== undefined
          ? `${command} is not installed: not checked`
          : run.status === 0 && (format !== "ledger" || run.stderr.trim() === "")
            ? `${command} ${args("FILE").join(" ")}: passed`
            : `${command} FAILED: ${(run.stderr || run.stdout).trim().split("\n").slice(0, 3).join(" / ")}`
      process.stdout.write(
        `  ${out}: ${journal.transactions} transactions, ${journal.assertions} ${format === "beancount" ? "balance directives" : "assertions"}; ${verdict}\n`
      )
    }
  })
