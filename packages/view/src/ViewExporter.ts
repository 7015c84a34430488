/**
 * The downloads: what `bills export --db` writes, from the export's own code. The view does not
 * write an export format itself; whoever starts it (`bills view`, in `@account-bills/node`)
 * provides the export, so a download is the same bytes as the command with the same flags.
 *
 * The port is a promise, not an effect: the `bills` program bundles its own copy of effect, and
 * a value of one copy must not run in another.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * The flags of one `bills export --db` run, as text and numbers (no effect types): the format, the
 * account (`all` for every kind), and the filters the page shows, times as they were written.
 *
 * @since 0.1.0
 * @category models
 */
export interface DownloadRequest {
  readonly db: string
  readonly label: string | undefined
  readonly format: string
  readonly account: "funding" | "spot" | "contract" | "all"
  readonly from: string | undefined
  readonly to: string | undefined
  readonly coinId: number | undefined
  readonly bizType: string | undefined
}

/**
 * How an export ended: written to the file asked for, or refused with the one line `bills`
 * would print (a usage error is the page's 400, anything else its 409).
 *
 * @since 0.1.0
 * @category models
 */
export type DownloadOutcome =
  | { readonly _tag: "Written" }
  | { readonly _tag: "Refused"; readonly usage: boolean; readonly message: string }

/**
 * Runs `bills export` with `request`'s flags into the file `out`.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportToFile = (request: DownloadRequest, out: string) => Promise<DownloadOutcome>

/**
 * The export refused the download, in its own words.
 *
 * @since 0.1.0
 * @category errors
 */
export class DownloadRefused extends Schema.TaggedError<DownloadRefused>("@account-bills/view/DownloadRefused")(
  "DownloadRefused",
  { usage: Schema.Boolean, reason: Schema.String }
) {
  override get message(): string {
    return this.reason
  }
}

/**
 * What the view needs of the export.
 *
 * @since 0.1.0
 * @category models
 */
export interface ViewExporterShape {
  readonly exportTo: (request: DownloadRequest, out: string) => Effect.Effect<void, DownloadRefused>
}

/**
 * The export the downloads run.
 *
 * @since 0.1.0
 * @category tags
 */
export class ViewExporter extends Context.Tag("@account-bills/view/ViewExporter")<ViewExporter, ViewExporterShape>() {
  /** The exporter over `run`; a rejected promise is a defect (the export reports its failures). */
  static readonly make = (run: ExportToFile): ViewExporterShape => ({
    exportTo: Effect.fn("ViewExporter.exportTo")(function* (request: DownloadRequest, out: string) {
      const outcome = yield* Effect.promise(() => run(request, out))
      if (outcome._tag === "Refused")
        return yield* new DownloadRefused({ usage: outcome.usage, reason: outcome.message })
    })
  })
  /** The exporter over `run`, as a layer. */
  static readonly layer = (run: ExportToFile): Layer.Layer<ViewExporter> =>
    Layer.succeed(ViewExporter, ViewExporter.make(run))
}
