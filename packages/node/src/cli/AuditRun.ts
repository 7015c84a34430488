/**
 * What `bills audit` runs: reads the ledger of one or both accounts and checks that every
 * balance chain holds, printing one line per account and coin and every break found.
 *
 * @since 0.1.0
 */
import { Ledger } from "@account-bills/core"
import * as Console from "effect/Console"
import * as Schema from "effect/Schema"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { refusalAsFuturesRefused, skipRefusedContract, skippedLine } from "./FuturesRefused.js"
import { accountsOf, type ExportAccount } from "./BillFormat.js"
import { plain } from "./CoinSummary.js"
import { importStore } from "./StoreModule.js"
import type { UsageError } from "./UsageError.js"
import { validateWindow, type Window, type WindowFlags } from "./WindowFlags.js"

/**
 * The audit found a break or a count that does not match; the process exits with code 3.
 *
 * @since 0.1.0
 * @category errors
 */
export class ChainBroken extends Schema.TaggedError<ChainBroken>("@account-bills/node/ChainBroken")("ChainBroken", {
  breaks: Schema.Number,
  counts: Schema.Number
}) {
  override get message(): string {
    const parts = [
      ...(this.breaks > 0 ? [`${this.breaks} break${this.breaks === 1 ? "" : "s"} in the balance chain`] : []),
      ...(this.counts > 0 ? [`${this.counts} account${this.counts === 1 ? "" : "s"} whose count does not match`] : [])
    ]
    return `the ledger is not whole: ${parts.join(", ")}`
  }
}

/**
 * The flags as parsed by the command line.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuditFlags extends WindowFlags {
  readonly account: ExportAccount
  /** Read from this store instead of the exchange. */
  readonly db: Option.Option<string>
  /** With `db`: read a partly synced store anyway. */
  readonly partial: boolean
  readonly label: Option.Option<string>
}

/**
 * Checks the flags together into a ledger query; the first problem is reported in one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const validateAuditFlags = (flags: AuditFlags): Effect.Effect<Ledger.LedgerQuery, UsageError> =>
  Effect.map(validateWindow(flags), (window) => auditQuery(flags, window))

const auditQuery = (flags: AuditFlags, window: Window): Ledger.LedgerQuery => ({ account: flags.account, ...window })

const iso = (time: DateTime.Utc): string => DateTime.formatIso(time)

const describeBill = (bill: Ledger.BillRef): string =>
  `${bill.billId} (${iso(bill.cTime)}, ${bill.bizType}, delta ${plain(bill.deltaAmount)}, fees ${plain(bill.fees)}, after ${plain(bill.afterAmount)})`

/**
 * The report as text: one line per account and coin, each break under its coin, the count
 * check under its account, and a verdict at the end.
 *
 * @since 0.1.0
 * @category utils
 */
export const formatReport = (report: Ledger.AuditReport): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const to = report.to === undefined ? "now" : iso(report.to)
  const window = report.from === undefined ? `the whole history up to ${to}` : `${iso(report.from)} to ${to}`
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
 * `covered`, from a store, says under the report's first line which window of each kind the
 * store holds completely.
 *
 * @since 0.1.0
 * @category utils
 */
export const runAudit = (query: Ledger.LedgerQuery, covered: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const report = yield* Ledger.audit(query)
    const [first, ...rest] = formatReport(report)
    for (const line of [...(first === undefined ? [] : [first]), ...covered, ...rest]) yield* Console.log(line)
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
 * Runs `bills audit` with the parsed flags.
 *
 * @since 0.1.0
 * @category commands
 */
export const auditWith = (parsed: AuditFlags) =>
  Effect.gen(function* () {
    const window = yield* validateWindow(parsed)
    const query = auditQuery(parsed, window)
    if (Option.isSome(parsed.db)) {
      const { describeCoverage, fromStore } = yield* importStore("audit --db", () => import("./FromStore.js"))
      return yield* fromStore(parsed.db.value, {
        kinds: accountsOf(parsed.account),
        contractOptional: parsed.account === "all",
        window,
        partial: parsed.partial,
        label: Option.getOrUndefined(parsed.label)
      })((coverage) =>
        runAudit(
          query,
          coverage.map((kind) => describeCoverage(kind, parsed))
        )
      )
    }
    // All accounts: a key the futures interface refuses is said in one line, and the audit goes
    // on with the other two. The futures account alone: the refusal is the audit's failure.
    const api =
      parsed.account === "all"
        ? skipRefusedContract((refused) =>
            Effect.sync(() => void process.stderr.write(`${skippedLine(refused)}\n`))
          ).pipe(Layer.provide(NodeBillsApi.layerConfig()))
        : NodeBillsApi.layerConfig()
    return yield* runAudit(query).pipe(refusalAsFuturesRefused, Effect.provide(api))
  })
