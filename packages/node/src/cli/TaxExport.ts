/**
 * `bills export --format koinly|cointracking|bittytax`: the ledger of the chosen accounts (both
 * by default) turned into events and written in the tool's layout; on stderr the flagged
 * events with their bill ids and a summary per coin. With `--strict` a flagged event is an
 * error (exit code 5) and nothing is written.
 *
 * @since 0.2.0
 */
import type { BillsError, BillsIncomplete } from "@account-bills/core"
import { LedgerEvents, TaxFiles } from "@account-bills/books"
import type { BillsApi } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ExportAccount } from "./BillFormat.js"
import { accountsLedger } from "./AccountsLedger.js"
import * as LineSink from "./LineSink.js"

/**
 * The formats of `bills export` that write a tax tool's file.
 *
 * @since 0.2.0
 * @category models
 */
export type TaxFormat = TaxFiles.TaxFormat

/**
 * Whether `format` is one of the tax tools' formats.
 *
 * @since 0.2.0
 * @category utils
 */
export const isTaxFormat = (format: string): format is TaxFormat =>
  (TaxFiles.taxFormats as ReadonlyArray<string>).includes(format)

/**
 * `--strict` met events that a file can only write single-sided: the lines above list them.
 *
 * @since 0.2.0
 * @category errors
 */
export class FlaggedEvents extends Schema.TaggedError<FlaggedEvents>("@account-bills/node/FlaggedEvents")(
  "FlaggedEvents",
  { count: Schema.Number, format: Schema.String }
) {
  override get message(): string {
    return `--strict: ${this.count} event${this.count === 1 ? "" : "s"} could be written only single-sided (listed above); no ${this.format} file was written`
  }
}

/**
 * What a tax export takes, already validated.
 *
 * @since 0.2.0
 * @category models
 */
export interface TaxExportRequest {
  readonly format: TaxFormat
  readonly account: ExportAccount
  readonly from?: number | undefined
  readonly to?: number | undefined
  readonly out?: string | undefined
  readonly strict: boolean
  /**
   * Leave out the flagged events' lines and the line per coin (the demo, which writes the same
   * events in every format and lists them once); the summary still counts them. Since 0.3.0.
   */
  readonly quiet?: boolean | undefined
}

const flaggedLine = (flagged: TaxFiles.Flagged): string => {
  const event = flagged.event
  const detail =
    event._tag === "Unpaired"
      ? `${event.account} ${event.bizType} (${event.reason}), ${event.change.coin} ${TaxFiles.amountText(event.change.amount)}`
      : event._tag === "Other"
        ? `${event.account} ${event.bizType}, ${event.change.coin} ${TaxFiles.amountText(event.change.amount)}`
        : event._tag
  return `bills: ${flagged.flag}: ${detail}: bill ${flagged.billIds.join(", ")}`
}

const coinLine = (coin: TaxFiles.CoinSummary): string => {
  const kinds = LedgerEvents.eventKinds
    .filter((kind) => coin.events[kind] > 0)
    .map((kind) => `${kind} ${coin.events[kind]}`)
    .join(", ")
  return `${coin.coin}: ${coin.bills} bill${coin.bills === 1 ? "" : "s"}; events: ${kinds === "" ? "none" : kinds}; balance changes ${coin.conserved ? "conserved" : "NOT conserved"}`
}

/** Lines are written in batches, so a big file costs few writes. */
const batchSize = 2_000

/**
 * Runs one tax export under whichever `BillsApi` is provided (the exchange, or a store).
 *
 * @since 0.2.0
 * @category utils
 */
export const taxExport = (
  request: TaxExportRequest
): Effect.Effect<
  TaxFiles.Summary,
  BillsError | BillsIncomplete | LineSink.OutputError | LineSink.OutputClosed | FlaggedEvents,
  BillsApi
> =>
  Effect.gen(function* () {
    const events = yield* LedgerEvents.fromStream(accountsLedger(request))
    const summary = TaxFiles.summarize(events)
    const report = (lines: ReadonlyArray<string>) =>
      Effect.sync(() => {
        if (lines.length > 0) process.stderr.write(`${lines.join("\n")}\n`)
      })
    if (request.quiet !== true) yield* report(summary.flagged.map(flaggedLine))
    if (request.strict && summary.flagged.length > 0) {
      return yield* new FlaggedEvents({ count: summary.flagged.length, format: request.format })
    }
    const sink = yield* LineSink.open(request.out)
    let batch: Array<string> = []
    for (const line of TaxFiles.lines(request.format, events)) {
      batch.push(line)
      if (batch.length >= batchSize) {
        yield* sink.write(batch.join(""))
        batch = []
      }
    }
    if (batch.length > 0) yield* sink.write(batch.join(""))
    const unpaired = summary.flagged.filter((flagged) => flagged.flag === "UNPAIRED").length
    const unknown = summary.flagged.length - unpaired
    yield* report([
      ...(request.quiet === true ? [] : summary.coins.map(coinLine)),
      `${request.format}: ${events.events.length} events from ${summary.coins.reduce((sum, coin) => sum + coin.bills, 0)} bills; ${unpaired} unpaired, ${unknown} of unknown type (written single-sided, flagged); balance changes ${summary.conserved ? "conserved for every coin" : "NOT conserved"}`
    ])
    return summary
  }).pipe(Effect.scoped)
