/**
 * `bills sync`: keeps every bill of the account in a store (DESIGN section 5c), fetching only
 * what is new after the first run. What runs it is loaded when the subcommand runs (SyncRun.ts),
 * so `bills --help` loads no store and no database driver.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"

const flags = {
  db: Options.text("db").pipe(
    Options.withDescription(
      "the store: a SQLite file or a postgres:// URL (password in PGPASSWORD); default bills.sqlite here"
    ),
    Options.optional
  ),
  account: Options.choice("account", ["funding", "spot", "all"]).pipe(Options.withDefault("all" as const)),
  from: Options.text("from").pipe(
    Options.withDescription("where the first sync starts (ISO-8601 or epoch ms); default: all the exchange serves"),
    Options.optional
  ),
  label: Options.text("label").pipe(
    Options.withDescription("a name for this account in the store (default: the API key's fingerprint)"),
    Options.optional
  ),
  overlap: Options.integer("overlap").pipe(
    Options.withDescription("seconds re-read before the end already kept, for bills that show up late"),
    Options.withDefault(60)
  ),
  maxRps: Options.integer("max-rps").pipe(
    Options.withDescription("requests per second per operation"),
    Options.withDefault(10)
  )
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
    Effect.promise(() => import("./SyncRun.js")),
    (run) => run.runSync(parsed)
  )
).pipe(Command.withDescription("keep every bill of the account in a store, fetching only what is new"))
