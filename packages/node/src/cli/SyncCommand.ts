/**
 * `bills sync`: keeps every bill of the account in a store, fetching only what is new after the
 * first run. What runs it is loaded when the subcommand runs (SyncRun.ts), and only if
 * `@account-bills/store` is installed (StoreModule.ts), so `bills --help` loads no store and no
 * database driver.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Flags from "./Flags.js"
import { importStore } from "./StoreModule.js"

const flags = {
  db: Flags.writeDb,
  account: Flags.account.pipe(Options.withDescription("(default: all)"), Options.withDefault("all" as const)),
  from: Flags.from.pipe(Options.withDescription("where the first sync starts (default: all the exchange serves)")),
  label: Flags.label,
  overlap: Flags.overlap,
  maxRps: Flags.maxRps
}

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 * @category models
 */
export type SyncFlags = Command.Command.ParseConfig<typeof flags>

/**
 * The `sync` subcommand.
 *
 * @since 0.1.0
 * @category commands
 */
export const syncCommand = Command.make("sync", flags, (parsed) =>
  Effect.flatMap(
    importStore("sync", () => import("./SyncRun.js")),
    (run) => run.runSync(parsed)
  )
).pipe(Command.withDescription("keep every bill of the account in a store, fetching only what is new"))
