/**
 * `bills sync`: keeps every bill of the account in a store (DESIGN section 5c), fetching only
 * what is new after the first run; progress on stderr, one line per account at the end.
 *
 * @since 0.1.0
 */
import { StoreAccount, StoreLayer, StoreTarget, Sync } from "@account-bills/store"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { countingUndici } from "./ExportCommand.js"
import { parseTime } from "./TimeFlag.js"
import { UsageError } from "./UsageError.js"

const flags = {
  db: Options.text("db").pipe(
    Options.withDescription("the store: a SQLite file or a postgres:// URL (password in PGPASSWORD)"),
    Options.withDefault(StoreTarget.defaultPath)
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
 * The `sync` subcommand.
 *
 * @since 0.1.0
 */
export const syncCommand = Command.make("sync", flags, (parsed) =>
  Effect.gen(function* () {
    const from = yield* Option.match(parsed.from, {
      onNone: () => Effect.succeed(undefined),
      onSome: (text) => Effect.mapError(parseTime("from", text), (reason) => new UsageError({ reason }))
    })
    if (parsed.overlap < 0)
      return yield* new UsageError({ reason: `--overlap must be 0 or more, got ${parsed.overlap}` })
    if (parsed.maxRps < 1)
      return yield* new UsageError({ reason: `--max-rps must be at least 1, got ${parsed.maxRps}` })
    const apiKey = yield* Config.redacted("WEEX_API_KEY")
    const http = yield* countingUndici
    const summaries = yield* Sync.run({
      account: StoreAccount.make(apiKey, Option.getOrUndefined(parsed.label)),
      kinds: parsed.account === "all" ? ["funding", "spot"] : [parsed.account],
      from,
      overlap: Duration.seconds(parsed.overlap),
      onPage: (progress) =>
        process.stderr.isTTY === true
          ? Effect.sync(() =>
              process.stderr.write(`\r${progress.kind}: ${progress.pages} pages, ${progress.added} new bills   `)
            )
          : Effect.void
    }).pipe(
      Effect.provide(
        Layer.merge(
          NodeBillsApi.layerConfig({ rateLimit: { limit: parsed.maxRps }, httpClient: http.layer }),
          StoreLayer.layerFrom(parsed.db)
        )
      )
    )
    if (process.stderr.isTTY === true) process.stderr.write("\n")
    for (const summary of summaries) {
      process.stderr.write(
        `${summary.kind}: ${summary.added} new bills in ${summary.pages} requests${summary.resumed ? " (resumed an interrupted sync)" : ""}; ${summary.stored} kept\n`
      )
    }
    return summaries
  })
).pipe(Command.withDescription("keep every bill of the account in a store, fetching only what is new"))
