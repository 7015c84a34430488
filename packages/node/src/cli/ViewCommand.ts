/**
 * `bills view`: a local, read-only page over a store, from `@account-bills/view` (an optional
 * peer, loaded only here). The store is opened first the way `bills export --db` opens it, so a
 * store that does not exist or is not one fails with the export's own line before anything
 * listens; the page's downloads run `bills export --db` itself (ExportRun.ts), into a file.
 *
 * @since 0.3.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ViewExporter } from "@account-bills/view"
import * as Flags from "./Flags.js"
import { importStore } from "./StoreModule.js"
import type { ExportFlags } from "./ExportFlags.js"
import { isJournalFormat } from "./JournalExport.js"
import { isTaxFormat } from "./TaxExport.js"
import { parseTime } from "./TimeFlag.js"

const flags = {
  db: Options.text("db").pipe(
    Options.withPseudoName("PATH|URL"),
    Options.withDescription("the store to show (a SQLite file or a postgres:// URL); needs @account-bills/store")
  ),
  label: Flags.label,
  host: Options.text("host").pipe(
    Options.withPseudoName("ADDRESS"),
    Options.withDescription("the address to listen on (default: 127.0.0.1; the page has no login)"),
    Options.withDefault("127.0.0.1")
  ),
  port: Options.text("port").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("port", 0, 65_535)),
    Options.withDescription("the port (default: 7400; 0: a free one)"),
    Options.withDefault(7400)
  ),
  open: Options.boolean("open").pipe(Options.withDescription("open the page in the browser"))
}

/** What `bills view` says when `@account-bills/view` is not installed. */
const viewInstall = "bills view needs @account-bills/view: npm install @account-bills/view"

/**
 * `bills view` could not start or stopped on a failure (`@account-bills/view` is not installed,
 * the port is taken): the one line `bills` prints.
 *
 * @since 0.3.0
 * @category errors
 */
export class ViewFailed extends Schema.TaggedError<ViewFailed>("@account-bills/node/ViewFailed")("ViewFailed", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** Whether `format` is one `bills export --format` takes. */
const isFormat = (format: string): format is ExportFlags["format"] =>
  format === "ndjson" || format === "csv" || isTaxFormat(format) || isJournalFormat(format)

/**
 * The page's download: `bills export --db` with the request's flags, into `out`; a failure is the
 * one line the export prints for it.
 *
 * @since 0.3.0
 * @category utils
 */
export const exportToFile = (request: ViewExporter.DownloadRequest, out: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const [{ runExport }, { describeFailure }] = yield* Effect.promise(() =>
        Promise.all([import("./ExportRun.js"), import("./FailureMessage.js")])
      )
      const time = (flag: string, text: string | undefined) =>
        text === undefined ? Either.right(Option.none()) : Either.map(parseTime(flag, text), Option.some)
      const from = time("from", request.from)
      const to = time("to", request.to)
      const format = request.format
      if (!isFormat(format))
        return { _tag: "Refused", usage: true, message: `--format ${format}: not a format of bills export` } as const
      if (Either.isLeft(from)) return { _tag: "Refused", usage: true, message: from.left } as const
      if (Either.isLeft(to)) return { _tag: "Refused", usage: true, message: to.left } as const
      return yield* runExport({
        account: Option.some(request.account),
        format,
        from: from.right,
        to: to.right,
        coinId: Option.fromNullable(request.coinId),
        bizType: Option.fromNullable(request.bizType),
        out: Option.some(out),
        maxRps: 10,
        concurrency: Option.none(),
        db: Option.some(request.db),
        partial: false,
        label: Option.fromNullable(request.label),
        strict: false,
        accountNames: Option.none()
      }).pipe(
        Effect.as({ _tag: "Written" } as const),
        Effect.catchAll((error) =>
          Effect.succeed({
            _tag: "Refused",
            usage: error._tag === "UsageError",
            message: describeFailure(error, Date.now())
          } as const)
        )
      )
    })
  )

/**
 * The `view` subcommand.
 *
 * @since 0.3.0
 * @category commands
 */
export const viewCommand = Command.make("view", flags, (parsed) =>
  Effect.gen(function* () {
    // The store first, as `bills export --db` opens it: the same line for a missing one.
    const { BillsStore, StoreBillsApi, StoreLayer } = yield* importStore("view", () => import("@account-bills/store"))
    yield* Effect.gen(function* () {
      yield* BillsStore
      if (Option.isSome(parsed.label))
        yield* StoreBillsApi.resolveAccount({ apiKey: undefined, label: parsed.label.value })
    }).pipe(Effect.provide(StoreLayer.layerFrom(parsed.db, { create: false })))
    const view = yield* Effect.tryPromise({
      try: () => import("@account-bills/view"),
      catch: () => new ViewFailed({ reason: viewInstall })
    })
    const outcome = yield* Effect.promise((signal) =>
      view.ViewMain.run(
        {
          db: parsed.db,
          label: Option.getOrUndefined(parsed.label),
          host: parsed.host,
          port: parsed.port,
          open: parsed.open,
          exportToFile
        },
        signal
      )
    )
    if (outcome._tag === "Failed") return yield* new ViewFailed({ reason: outcome.message })
  })
).pipe(
  Command.withDescription(
    "a local, read-only page over a store: balances over time, the bills with their raw records, the events, the audit, and downloads in every export format (needs @account-bills/view)"
  )
)
