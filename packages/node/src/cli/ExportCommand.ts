/**
 * `bills export`: the flags of DESIGN section 6. What runs them is loaded when the subcommand
 * runs (ExportRun.ts), so the bundled bin answers `--help` without it.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { dbFlag, partialFlag } from "./StoreFlag.js"
import { windowFlags } from "./WindowFlags.js"

const flags = {
  account: Options.choice("account", ["funding", "spot", "all"]).pipe(
    Options.withDescription("which account's bills; all: both at once, each line tagged with its account")
  ),
  ...windowFlags,
  bizType: Options.text("biz-type").pipe(Options.withDescription("only this business type"), Options.optional),
  format: Options.choice("format", ["ndjson", "csv"]).pipe(Options.withDefault("ndjson" as const)),
  out: Options.text("out").pipe(Options.withDescription("write to this file instead of stdout"), Options.optional),
  maxRps: Options.integer("max-rps").pipe(
    Options.withDescription("requests per second per operation"),
    Options.withDefault(10)
  ),
  concurrency: Options.integer("concurrency").pipe(
    Options.withDescription("requests in flight per account (default 9; 1: one after the other)"),
    Options.optional
  ),
  db: dbFlag,
  partial: partialFlag
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
).pipe(Command.withDescription("export an account's bills, or both accounts', as NDJSON or CSV"))
