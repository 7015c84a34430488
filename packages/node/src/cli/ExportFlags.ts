/**
 * The check of the `bills export` flags that needs two of them at once, into an
 * `ExportRequest`; each flag alone was checked by the parser (Flags.ts).
 *
 * @since 0.1.0
 */
import { type BillKind, contractIncomeTypes, fundingBizTypes, spotBizTypes } from "@account-bills/core"
import { Journal } from "@account-bills/books"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { accountsOf, type ExportAccount, type ExportFormat } from "./BillFormat.js"
import type { ExportRequest } from "./ExportBills.js"
import type { JournalExportRequest } from "./JournalExport.js"
import type { TaxExportRequest, TaxFormat } from "./TaxExport.js"
import { UsageError } from "./UsageError.js"
import { validateWindow, type WindowFlags } from "./WindowFlags.js"

/** The business types each account documents. */
const bizTypesOf: Readonly<Record<BillKind, ReadonlyArray<string>>> = {
  funding: fundingBizTypes,
  spot: spotBizTypes,
  contract: contractIncomeTypes
}

/**
 * The warning for a `--biz-type` that an account read does not document, or nothing: the type is
 * sent as given (records carry types beyond the documented ones), and the exchange may answer
 * with no bills or refuse it.
 *
 * @since 0.2.0
 * @category utils
 */
export const undocumentedBizType = (account: ExportAccount, bizType: string): string | undefined => {
  const without = accountsOf(account).filter((kind) => !bizTypesOf[kind].includes(bizType))
  if (without.length === 0) return undefined
  const which =
    without.length === 1
      ? `a documented ${without[0]} bizType (documented: ${bizTypesOf[without[0] as BillKind].join(", ")})`
      : `a documented bizType of ${without.join(" or ")}`
  return `bills: warning: --biz-type ${bizType} is not ${which}; it is sent as given, and the exchange may answer with no bills or refuse it`
}

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportFlags extends WindowFlags {
  /** Required but for the tax tools' formats, which read every account unless told otherwise. */
  readonly account: Option.Option<ExportAccount>
  readonly format: ExportFormat | TaxFormat | Journal.JournalFormat
  readonly bizType: Option.Option<string>
  readonly out: Option.Option<string>
  readonly maxRps: number
  /** Requests each account's walk may have in flight; the library's default when absent. */
  readonly concurrency: Option.Option<number>
  /** Read from this store instead of the exchange. */
  readonly db: Option.Option<string>
  /** With `db`: read a partly synced store anyway. */
  readonly partial: boolean
  readonly label: Option.Option<string>
  /** With a tax format: single-sided rows are an error. */
  readonly strict: boolean
  /** With a journal format: a JSON file of account names. */
  readonly accountNames: Option.Option<string>
}

/**
 * Checks the flags together; the first problem is reported in one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const validateExportFlags = (
  flags: ExportFlags & { readonly format: ExportFormat }
): Effect.Effect<{ readonly request: ExportRequest; readonly maxRps: number }, UsageError> =>
  Effect.gen(function* () {
    if (flags.strict) {
      return yield* new UsageError({
        reason: "--strict goes with --format koinly|cointracking|bittytax|hledger|ledger|beancount"
      })
    }
    yield* journalOnly(flags)
    if (Option.isNone(flags.account)) {
      return yield* new UsageError({ reason: `--format ${flags.format} needs --account funding|spot|contract|all` })
    }
    const account = flags.account.value
    const window = yield* validateWindow(flags)
    if (Option.isSome(flags.coinId) && account === "contract") {
      return yield* new UsageError({
        reason:
          "--coin-id does not apply to the futures account, whose bills name assets, not coin ids; use it with --account funding or --account spot"
      })
    }
    if (Option.isSome(flags.label) && Option.isNone(flags.db)) {
      return yield* new UsageError({ reason: "--label chooses an account of a store: give the store with --db" })
    }
    const request: ExportRequest = {
      account,
      format: flags.format,
      ...window,
      ...Option.match(flags.bizType, { onNone: () => ({}), onSome: (bizType) => ({ bizType }) }),
      ...Option.match(flags.out, { onNone: () => ({}), onSome: (out) => ({ out }) }),
      ...Option.match(flags.concurrency, { onNone: () => ({}), onSome: (concurrency) => ({ concurrency }) })
    }
    return { request, maxRps: flags.maxRps }
  })

/** What the exports built on events share: all coins and business types, every account by default. */
const eventsRequest = (flags: ExportFlags, format: string) =>
  Effect.gen(function* () {
    const window = yield* validateWindow(flags)
    if (window.coinId !== undefined || Option.isSome(flags.bizType)) {
      return yield* new UsageError({
        reason: `--format ${format} needs every coin and business type (a trade has two coins, a transfer two accounts): drop --coin-id and --biz-type`
      })
    }
    if (Option.isSome(flags.label) && Option.isNone(flags.db)) {
      return yield* new UsageError({ reason: "--label chooses an account of a store: give the store with --db" })
    }
    return {
      account: Option.getOrElse(flags.account, () => "all" as const),
      from: window.from,
      to: window.to,
      out: Option.getOrUndefined(flags.out),
      strict: flags.strict
    }
  })

const journalOnly = (flags: ExportFlags) =>
  Option.isSome(flags.accountNames)
    ? new UsageError({ reason: "--account-names goes with --format hledger|ledger|beancount" })
    : Effect.void

/**
 * Checks the flags of an export to a tax tool's file: every coin and business type is needed to
 * pair trades and match transfers, so `--coin-id` and `--biz-type` are refused; the accounts
 * default to all.
 *
 * @since 0.2.0
 * @category utils
 */
export const validateTaxFlags = (
  flags: ExportFlags,
  format: TaxFormat
): Effect.Effect<{ readonly request: TaxExportRequest; readonly maxRps: number }, UsageError> =>
  Effect.gen(function* () {
    yield* journalOnly(flags)
    const request: TaxExportRequest = { format, ...(yield* eventsRequest(flags, format)) }
    return { request, maxRps: flags.maxRps }
  })

/**
 * Checks the flags of an export to a journal: as for a tax tool's file, and the account names of
 * `--account-names` read and checked against the tool's rules before anything is fetched.
 *
 * @since 0.2.0
 * @category utils
 */
export const validateJournalFlags = (
  flags: ExportFlags,
  format: Journal.JournalFormat
): Effect.Effect<{ readonly request: JournalExportRequest; readonly maxRps: number }, UsageError> =>
  Effect.gen(function* () {
    const common = yield* eventsRequest(flags, format)
    const accountNames = Option.isNone(flags.accountNames) ? {} : yield* readAccountNames(flags.accountNames.value)
    yield* Journal.checkAccountNames(format, accountNames).pipe(
      Effect.mapError((error) => new UsageError({ reason: `--account-names: ${error.message}` }))
    )
    return { request: { format, accountNames, ...common }, maxRps: flags.maxRps }
  })

/** The JSON mapping file of `--account-names`, decoded; a bad file is a usage error naming it. */
const readAccountNames = (file: string): Effect.Effect<Journal.AccountNames, UsageError> =>
  Effect.try({
    try: () => fs.readFileSync(file, "utf8"),
    catch: (error) =>
      new UsageError({ reason: `--account-names ${file}: cannot read it (${(error as Error).message})` })
  }).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(Journal.AccountNames, {}), { onExcessProperty: "error" })),
    Effect.mapError((error) =>
      error._tag === "UsageError"
        ? error
        : new UsageError({
            reason: `--account-names ${file}: expected a JSON object of account names (keys spot, funding, futures, fees, income, losses, external, opening, suspense): ${error.message.split("\n").slice(-1)[0]}`
          })
    )
  )
