/**
 * `bills export --format hledger|ledger|beancount`: the ledger of the chosen accounts (all by
 * default) turned into events and written as a journal for the tool, every balance the exchange
 * reported asserted; on stderr what went to the suspense account, with its bill ids, and a
 * summary. With `--strict` anything booked against suspense is an error (exit code 5) and
 * nothing is written.
 *
 * @since 0.2.0
 */
import type { BillsApi, BillsError, BillsIncomplete } from "@account-bills/core"
import { Journal, LedgerEvents, TaxFiles } from "@account-bills/books"
import * as Effect from "effect/Effect"
import type { ExportAccount } from "./BillFormat.js"
import { accountsLedger } from "./AccountsLedger.js"
import * as LineSink from "./LineSink.js"
import { FlaggedEvents } from "./TaxExport.js"
import { UsageError } from "./UsageError.js"

/**
 * Whether `format` is one of the journal formats.
 *
 * @since 0.2.0
 * @category utils
 */
export const isJournalFormat = (format: string): format is Journal.JournalFormat =>
  (Journal.JournalFormat.literals as ReadonlyArray<string>).includes(format)

/**
 * What a journal export takes, already validated.
 *
 * @since 0.2.0
 * @category models
 */
export interface JournalExportRequest {
  readonly format: Journal.JournalFormat
  readonly account: ExportAccount
  readonly from?: number | undefined
  readonly to?: number | undefined
  readonly out?: string | undefined
  readonly strict: boolean
  readonly accountNames: Journal.AccountNames
  /** Leave out the line per suspense entry (the demo); the summary still counts them. */
  readonly quiet?: boolean | undefined
}

const suspenseLine = (entry: Journal.SuspenseEntry): string =>
  `bills: SUSPENSE: ${entry.account} ${entry.coin} ${TaxFiles.amountText(entry.amount)}: ${entry.reason}: bill ${entry.billIds.join(", ")}`

/**
 * Runs one journal export under whichever `BillsApi` is provided (the exchange, or a store).
 *
 * @since 0.2.0
 * @category utils
 */
export const journalExport = (
  request: JournalExportRequest
): Effect.Effect<
  Journal.Journal,
  BillsError | BillsIncomplete | UsageError | LineSink.OutputError | LineSink.OutputClosed | FlaggedEvents,
  BillsApi
> =>
  Effect.gen(function* () {
    const events = yield* LedgerEvents.fromStream(accountsLedger(request))
    // The names were checked before anything was fetched (validateJournalFlags); a refusal here
    // would still be a usage error.
    const journal = yield* Journal.write(request.format, events, { accountNames: request.accountNames }).pipe(
      Effect.mapError((error) => new UsageError({ reason: `--account-names: ${error.message}` }))
    )
    const report = (lines: ReadonlyArray<string>) =>
      Effect.sync(() => {
        if (lines.length > 0) process.stderr.write(`${lines.join("\n")}\n`)
      })
    if (request.quiet !== true) yield* report(journal.suspense.map(suspenseLine))
    if (request.strict && journal.suspense.length > 0) {
      return yield* new FlaggedEvents({ count: journal.suspense.length, format: request.format })
    }
    const sink = yield* LineSink.open(request.out)
    yield* sink.write(journal.text)
    const bills = events.conservation.reduce((sum, coin) => sum + coin.bills, 0)
    yield* report([
      `${request.format}: ${journal.transactions} transactions from ${bills} bills; ${journal.assertions} ${request.format === "beancount" ? "balance directives" : "balance assertions"}; ${journal.suspense.length} booked against suspense${request.quiet === true ? "" : " (listed above)"}; balance changes ${events.conserved ? "conserved for every coin" : "NOT conserved"}`
    ])
    return journal
  }).pipe(Effect.scoped)
