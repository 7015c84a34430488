/**
 * The check of the `bills export` flags that needs two of them at once, into an
 * `ExportRequest`; each flag alone was checked by the parser (Flags.ts).
 *
 * @since 0.1.0
 */
import { type BillKind, contractIncomeTypes, fundingBizTypes, spotBizTypes } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ExportAccount, ExportFormat } from "./BillFormat.js"
import type { ExportRequest } from "./ExportBills.js"
import { UsageError } from "./UsageError.js"
import { validateWindow, type WindowFlags } from "./WindowFlags.js"

/** The business types each account documents. */
const bizTypesOf: Readonly<Record<BillKind, ReadonlyArray<string>>> = {
  funding: fundingBizTypes,
  spot: spotBizTypes,
  contract: contractIncomeTypes
}

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportFlags extends WindowFlags {
  readonly account: ExportAccount
  readonly format: ExportFormat
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
}

/**
 * Checks the flags together; the first problem is reported in one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const validateExportFlags = (
  flags: ExportFlags
): Effect.Effect<{ readonly request: ExportRequest; readonly maxRps: number }, UsageError> =>
  Effect.gen(function* () {
    const window = yield* validateWindow(flags)
    // With all accounts, a filter must mean the same on each, or a part would be refused.
    const allowed: ReadonlyArray<string> =
      flags.account === "all"
        ? fundingBizTypes.filter(
            (bizType) => bizTypesOf.spot.includes(bizType) && bizTypesOf.contract.includes(bizType)
          )
        : bizTypesOf[flags.account]
    if (Option.isSome(flags.bizType) && !allowed.includes(flags.bizType.value)) {
      const kind = flags.account === "all" ? "bizType of all three accounts" : `${flags.account} bizType`
      return yield* new UsageError({
        reason: `--biz-type ${flags.bizType.value} is not a ${kind}; use one of ${allowed.join(", ")}`
      })
    }
    if (Option.isSome(flags.coinId) && flags.account === "contract") {
      return yield* new UsageError({
        reason:
          "--coin-id does not apply to the futures account, whose bills name assets, not coin ids; use it with --account funding or --account spot"
      })
    }
    if (Option.isSome(flags.label) && Option.isNone(flags.db)) {
      return yield* new UsageError({ reason: "--label chooses an account of a store: give the store with --db" })
    }
    const request: ExportRequest = {
      account: flags.account,
      format: flags.format,
      ...window,
      ...Option.match(flags.bizType, { onNone: () => ({}), onSome: (bizType) => ({ bizType }) }),
      ...Option.match(flags.out, { onNone: () => ({}), onSome: (out) => ({ out }) }),
      ...Option.match(flags.concurrency, { onNone: () => ({}), onSome: (concurrency) => ({ concurrency }) })
    }
    return { request, maxRps: flags.maxRps }
  })
