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
import { parseTime } from "./TimeFlag.js"
import { UsageError } from "./UsageError.js"

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 */
export interface ExportFlags {
  readonly account: Account
  readonly format: ExportFormat
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
  readonly coinId: Option.Option<number>
  readonly bizType: Option.Option<string>
  readonly out: Option.Option<string>
  readonly maxRps: number
}

const time = (flag: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => Effect.mapError(parseTime(flag, text), (reason) => new UsageError({ reason }))
  })

/**
 * Checks the flags together; the first problem is reported in one line.
 *
 * @since 0.1.0
 */
export const validateExportFlags = (
  flags: ExportFlags
): Effect.Effect<{ readonly request: ExportRequest; readonly maxRps: number }, UsageError> =>
  Effect.gen(function* () {
    const from = yield* time("from", flags.from)
    const to = yield* time("to", flags.to)
    if (from !== undefined && to !== undefined && from > to) {
      return yield* new UsageError({ reason: `--from (${flags.from.pipe(Option.getOrElse(() => ""))}) is after --to` })
    }
    if (Option.isSome(flags.coinId) && flags.coinId.value < 1) {
      return yield* new UsageError({ reason: `--coin-id must be a positive integer, got ${flags.coinId.value}` })
    }
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
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...Option.match(flags.coinId, { onNone: () => ({}), onSome: (coinId) => ({ coinId }) }),
      ...Option.match(flags.bizType, { onNone: () => ({}), onSome: (bizType) => ({ bizType }) }),
      ...Option.match(flags.out, { onNone: () => ({}), onSome: (out) => ({ out }) })
    }
    return { request, maxRps: flags.maxRps }
  })
