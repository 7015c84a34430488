/**
 * `bills export`: its flags. What runs them is loaded when the subcommand runs (ExportRun.ts),
 * so the bundled bin answers `--help` without it.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Flags from "./Flags.js"
import { windowFlags } from "./WindowFlags.js"

const flags = {
  // Optional here: the tax tools' formats read every account unless told otherwise.
  account: Options.optional(Flags.account),
  ...windowFlags,
  bizType: Flags.bizType,
  format: Flags.format,
  out: Flags.out,
  maxRps: Flags.maxRps,
  concurrency: Flags.concurrency,
  db: Flags.readDb,
  partial: Flags.partial,
  label: Flags.label,
  strict: Flags.strict,
  accountNames: Flags.accountNames
}

/**
 * The `export` subcommand.
 *
 * @since 0.1.0
 * @category commands
 */
export const exportCommand = Command.make("export", flags, (parsed) =>
  Effect.flatMap(
    Effect.promise(() => import("./ExportRun.js")),
    (run) => run.runExport(parsed)
  )
).pipe(
  Command.withDescription(
    "export an account's bills, or all three accounts', as NDJSON or CSV, as a tax tool's import file (koinly, cointracking, bittytax), or as a journal (hledger, ledger, beancount)"
  )
)
