/**
 * `bills audit`: reads the ledger of one or both accounts and checks that every balance chain
 * holds, printing one line per account and coin and every break found.
 *
 * @since 0.1.0
 */
import { Ledger } from "@account-bills/core"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { plain } from "./CoinSummary.js"
import { dbFlag, fromStore } from "./StoreFlag.js"
import { parseTime } from "./TimeFlag.js"
import { UsageError } from "./UsageError.js"
import { windowFlags } from "./WindowFlags.js"

/**
 * The audit found a break or a count that does not match; the process exits with code 3.
 *
 * @since 0.1.0
 */
export class ChainBroken extends Data.TaggedError("ChainBroken")<{ readonly breaks: number; readonly counts: number }> {
  override get message(): string {
    const parts = [
      ...(this.breaks > 0 ? [`${this.breaks} break${this.breaks === 1 ? "" : "s"} in the balance chain`] : []),
      ...(this.counts > 0 ? [`${this.counts} account${this.counts === 1 ? "" : "s"} whose count does not match`] : [])
    ]
    return `the ledger is not whole: ${parts.join(", ")}`
  }
}

const flags = {
  account: Options.choice("account", ["funding", "spot", "all"]).pipe(
    Options.withDescription("which account's ledger to audit")
  ),
  ...windowFlags,
  db: dbFlag
}

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 */
export interface AuditFlags {
  readonly account: "funding" | "spot" | "all"
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
  readonly coinId: Option.Option<number>
}

const time = (flag: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => Effect.mapError(parseTime(flag, text), (reason) => new UsageError({ reason }))
  })

/**
 * Checks the flags together into a ledger query; the first problem is reported in one line.
 *
 * @since 0.1.0
 */
export const validateAuditFlags = (flags: AuditFlags): Effect.Effect<Ledger.LedgerQuery, UsageError> =>
  Effect.gen(function* () {
    const from = yield* time("from", flags.from)
    const to = yield* time("to", flags.to)
    if (from !== undefined && to !== undefined && from > to) {
      return yield* new UsageError({ reason: `--from (${Option.getOrElse(flags.from, () => "")}) is after --to` })
    }
    if (Option.isSome(flags.coinId) && flags.coinId.value < 1) {
      return yield* new UsageError({ reason: `--coin-id must be a positive integer, got ${flags.coinId.value}` })
    }
    return {
      account: flags.account,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...Option.match(flags.coinId, { onNone: () => ({}), onSome: (coinId) => ({ coinId }) })
    }
  })

const iso = (time: DateTime.Utc): string => DateTime.formatIso(time)

const describeBill = (bill: Ledger.BillRef): string =>
  `${bill.billId} (${iso(bill.cTime)}, ${bill.bizType}, delta ${plain(bill.deltaAmount)}, fees ${plain(bill.fees)}, after ${plain(bill.afterAmount)})`

/**
 * The report as text: one line per account and coin, each break under its coin, the count
 * check under its account, and a verdict at the end.
 *
 * @since 0.1.0
 */
export const formatReport = (report: Ledger.AuditReport): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const window = `${report.from === undefined ? "the beginning" : iso(report.from)} to ${report.to === undefined ? "now" : iso(report.to)}`
  lines.push(`audit of ${window}${report.coinId === undefined ? "" : `, coin ${report.coinId}`}`)
  for (const account of report.accounts) {
    if (account.coins.length === 0) lines.push(`${account.account}: no bills`)
    for (const coin of account.coins) {
      const verdict = coin.whole ? "whole" : `BROKEN: ${coin.breakCount} break${coin.breakCount === 1 ? "" : "s"}`
      lines.push(
        `${account.account} ${coin.coinName} (${coin.coinId}): ${coin.bills} bills, ${iso(coin.firstTime)} to ${iso(coin.lastTime)}, balance ${plain(coin.openingBalance)} -> ${plain(coin.lastBalance)}, rule ${Ledger.feeRuleFormula[coin.rule]}: ${verdict}`
      )
      for (const found of coin.breaks) {
        lines.push(
          `  break between ${describeBill(found.earlier)} and ${describeBill(found.later)}: expected to start from ${plain(found.expectedBefore)}, starts from ${plain(found.foundBefore)} (missing ${plain(found.difference)})`
        )
      }
      if (coin.breaks.length < coin.breakCount) {
        lines.push(`  ... and ${coin.breakCount - coin.breaks.length} more`)
      }
    }
    if (account.total !== undefined) {
      const matches = account.total === account.bills
      lines.push(
        `${account.account} count: the exchange counts ${account.total} bills, ${account.bills} received${matches ? "" : ": MISMATCH"}`
      )
    }
  }
  lines.push(report.whole ? "whole: every chain holds" : "NOT WHOLE")
  return lines
}

/**
 * Runs the audit and prints its report; fails with `ChainBroken` when the ledger is not whole.
 *
 * @since 0.1.0
 */
export const runAudit = (query: Ledger.LedgerQuery) =>
  Effect.gen(function* () {
    const report = yield* Ledger.audit(query)
    for (const line of formatReport(report)) yield* Console.log(line)
    if (!report.whole) {
      const coins = report.accounts.flatMap((account) => account.coins)
      return yield* new ChainBroken({
        breaks: coins.reduce((sum, coin) => sum + coin.breakCount, 0),
        counts: report.accounts.filter((a) => a.total !== undefined && a.total !== a.bills).length
      })
    }
    return report
  })

/**
 * The `audit` subcommand.
 *
 * @since 0.1.0
 */
export const auditCommand = Command.make("audit", flags, (parsed) =>
  Effect.gen(function* () {
    const query = yield* validateAuditFlags(parsed)
    yield* Option.isSome(parsed.db)
      ? fromStore(parsed.db.value)(runAudit(query))
      : runAudit(query).pipe(Effect.provide(NodeBillsApi.layerConfig()))
  })
).pipe(Command.withDescription("check that every balance chain of the ledger holds (exit 3 if not)"))
