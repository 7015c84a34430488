/**
 * Validation of the `bills export` flags into an `ExportRequest`, before anything is sent.
 *
 * @since 0.1.0
 */
import { fundingBizTypes, spotBizTypes } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Account, ExportFormat } from "./BillFormat.js"
import type { ExportRequest } from "./ExportBills.js"
import { UsageError } from "./UsageError.js"
import { validateWindow, type WindowFlags } from "./WindowFlags.js"

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportFlags extends WindowFlags {
  readonly account: Account
  readonly format: ExportFormat
  readonly bizType: Option.Option<string>
  readonly out: Option.Option<string>
  readonly maxRps: number
  /** Read from this store instead of the exchange. */
  readonly db: Option.Option<string>
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
    const allowed: ReadonlyArray<string> = flags.account === "funding" ? fundingBizTypes : spotBizTypes
    if (Option.isSome(flags.bizType) && !allowed.includes(flags.bizType.value)) {
      return yield* new UsageError({
        reason: `--biz-type ${flags.bizType.value} is not a ${flags.account} bizType; use one of ${allowed.join(", ")}`
      })
    }
    if (!Number.isInteger(flags.maxRps) || flags.maxRps < 1) {
      return yield* new UsageError({ reason: `--max-rps must be a whole number of at least 1, got ${flags.maxRps}` })
    }
    const request: ExportRequest = {
      account: flags.account,
      format: flags.format,
      ...window,
      ...Option.match(flags.bizType, { onNone: () => ({}), onSome: (bizType) => ({ bizType }) }),
      ...Option.match(flags.out, { onNone: () => ({}), onSome: (out) => ({ out }) })
    }
    return { request, maxRps: flags.maxRps }
  })
