/**
 * What `bills audit` runs: reads the ledger of one or both accounts and checks that every
 * balance chain holds, printing one line per account and coin and every break found.
 *
 * @since 0.1.0
 */
import { Ledger, LedgerEvents } from "@account-bills/books"
import * as Console from "effect/Console"
import * as Schema from "effect/Schema"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { refusalAsFuturesRefused, skipRefusedContract, skippedLine } from "./FuturesRefused.js"
import { auditEvents, auditJson } from "./AuditJson.js"
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
  /** `text` for people, `json` (one `AuditOutput` object) for scripts. */
  readonly format: AuditFormat
}

/**
 * How `bills audit` prints its report.
 *
 * @since 0.2.0
 * @category models
 */
export type AuditFormat = "text" | "json"

/**
 * Checks the flags together into a ledger query; the first problem is reported in one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const validateAuditFlags = (flags: AuditFlags): Effect.Effect<Ledger.LedgerQuery, UsageError> =>
  Effect.map(validateWindow(flags), (window) => auditQuery(flags, window))

// The command reads funding and spot; the futures account comes with its own flag value.
const auditQuery = (flags: AuditFlags, window: Window): Ledger.LedgerQuery => ({
  // A coin id names a coin of funding and spot: the futures account, which names assets, is left out.
  account: flags.account === "all" && window.coinId !== undefined ? ["funding", "spot"] : flags.account,
  ...window
})

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
        `${account.account} ${coin.coinName}${coin.coinId === undefined ? "" : ` (${coin.coinId})`}: ${coin.bills} bills, ${iso(coin.firstTime)} to ${iso(coin.lastTime)}, balance ${plain(coin.openingBalance)} -> ${plain(coin.lastBalance)}, rule ${Ledger.feeRuleFormula[coin.rule]}: ${verdict}`
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

/** The rule each account was read under, as the audit found it. */
const readRules = (report: Ledger.AuditReport) => {
  const rules: Partial<Record<Ledger.LedgerAccount, LedgerEvents.ReadRule>> = {}
  for (const account of report.accounts) {
    rules[account.account] = account.rule === "undetermined" ? "delta-includes-fees" : account.rule
  }
  return rules
}

/** Most bill ids listed per line of the events report. */
const maxIds = 20

const idList = (events: ReadonlyArray<LedgerEvents.LedgerEvent>): string => {
  const ids = events.flatMap((event) => event.entries.map((entry) => `${entry.account}:${entry.bill.billId}`))
  return ids.length <= maxIds ? ids.join(" ") : `${ids.slice(0, maxIds).join(" ")} ... and ${ids.length - maxIds} more`
}

/**
 * The events of the audited bills as text: trades paired and legs unpaired, transfers matched
 * and legs unmatched (with their bill ids), and per account and coin whether the events
 * conserve the bills' balance changes.
 *
 * @since 0.2.0
 * @category utils
 */
export const formatEvents = (result: LedgerEvents.LedgerEvents): ReadonlyArray<string> => {
  const of = (tag: LedgerEvents.EventKind) => result.events.filter((event) => event._tag === tag)
  const unpaired = of("Unpaired") as ReadonlyArray<LedgerEvents.Unpaired>
  const legs = unpaired.filter((event) => event.reason !== "no-matching-transfer")
  const unmatched = unpaired.filter((event) => event.reason === "no-matching-transfer")
  const lines = [
    `events: ${result.events.length} from ${result.conservation.reduce((sum, row) => sum + row.bills, 0)} bills`,
    `trades: ${of("Trade").length} paired, ${legs.length} leg${legs.length === 1 ? "" : "s"} unpaired${legs.length === 0 ? "" : `: ${idList(legs)}`}`,
    `transfers: ${of("InternalTransfer").length} matched, ${unmatched.length} leg${unmatched.length === 1 ? "" : "s"} unmatched${unmatched.length === 0 ? "" : `: ${idList(unmatched)}`}`
  ]
  for (const row of result.conservation) {
    lines.push(
      `events of ${row.account} ${row.coin}: ${row.conserved ? "conserve" : "DO NOT conserve"} the bills' balance change ${plain(row.billsChange)}${row.conserved ? "" : ` (events: ${plain(row.eventsChange)})`}`
    )
  }
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
export const runAudit = (
  query: Ledger.LedgerQuery,
  covered: ReadonlyArray<string> = [],
  format: AuditFormat = "text"
) =>
  Effect.gen(function* () {
    // One read serves both: the chains, and the events (which need every coin to pair trades).
    const entries: Array<Ledger.LedgerEntry> = []
    const report = yield* Ledger.audit(
      query,
      query.coinId === undefined ? { onEntry: (entry) => void entries.push(entry) } : {}
    )
    const events =
      query.coinId === undefined ? yield* LedgerEvents.fromEntries(entries, { feeRules: readRules(report) }) : undefined
    if (format === "json") {
      yield* Console.log(
        auditJson({
          whole: report.whole,
          report,
          store: covered,
          events: events === undefined ? null : auditEvents(events)
        })
      )
    } else {
      const [first, ...rest] = formatReport(report)
      const verdict = rest.pop()
      for (const line of [
        ...(first === undefined ? [] : [first]),
        ...covered,
        ...rest,
        ...(events === undefined
          ? ["events: not paired with --coin-id (a trade has two coins)"]
          : formatEvents(events)),
        ...(verdict === undefined ? [] : [verdict])
      ]) {
        yield* Console.log(line)
      }
    }
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
          coverage.map((kind) => describeCoverage(kind, parsed)),
          parsed.format
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
    return yield* runAudit(query, [], parsed.format).pipe(refusalAsFuturesRefused, Effect.provide(api))
  })
