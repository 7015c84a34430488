/**
 * From bills to events: the merged ledger of one key's accounts turned into trades, internal
 * transfers, deposits, withdrawals, fees, income and the rest, every bill in exactly one event,
 * every coin's balance change conserved. The rules and their evidence are in
 * `docs/internals/events.md`; where the data cannot tell, a leg stays `Unpaired` rather than be
 * paired by guess.
 *
 * This module is the `LedgerEvents` namespace: the functions here, the event types from
 * `LedgerEvent`.
 *
 * @since 0.2.0
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { BillsIncomplete } from "@account-bills/core"
import { classify } from "./internal/ledgerEvents.js"
import { auditEntries } from "./LedgerAudit.js"
import type { EventAccount, LedgerEvents, ReadRule } from "./LedgerEvent.js"
import type { LedgerEntry } from "./LedgerEntry.js"

/**
 * The event types.
 *
 * @since 0.2.0
 * @category exports
 */
export * from "./LedgerEvent.js"

/**
 * How far apart in time (ms) the two legs of one internal transfer may be: the exchange books
 * both in one request, so they are expected in the same second; see `docs/internals/events.md`.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultTransferWindowMillis = 10_000

/**
 * Options of `fromEntries`.
 *
 * @since 0.2.0
 * @category models
 */
export interface EventsOptions {
  /**
   * The fee rule per account. Default: the rule the balance-chain audit infers from the same
   * bills, and `"delta-includes-fees"` where it cannot tell (no bill carries a fee).
   */
  readonly feeRules?: Partial<Record<EventAccount, ReadRule>> | undefined
  /** Default {@link defaultTransferWindowMillis}. */
  readonly transferWindowMillis?: number | undefined
}

/**
 * The rule an account's data follows, as the audit infers it.
 */
const inferRules = (
  entries: ReadonlyArray<LedgerEntry>
): Effect.Effect<Partial<Record<EventAccount, ReadRule>>, BillsIncomplete> =>
  Effect.gen(function* () {
    const accounts = [...new Set(entries.map((entry) => entry.account))]
    // An account whose bills carry no fee has no rule to find (the audit says "undetermined"):
    // only the accounts with a fee are walked.
    const withFees = new Set(
      entries.filter((entry) => !BigDecimal.isZero(entry.bill.fees)).map((entry) => entry.account)
    )
    const report = yield* auditEntries(Stream.fromIterable(entries.filter((entry) => withFees.has(entry.account))), {
      accounts: accounts.filter((account) => withFees.has(account)),
      maxBreaks: 0
    })
    const rules: Partial<Record<EventAccount, ReadRule>> = {}
    for (const account of accounts) rules[account] = "delta-includes-fees"
    for (const account of report.accounts) {
      rules[account.account] = account.rule === "undetermined" ? "delta-includes-fees" : account.rule
    }
    return rules
  })

/**
 * The events of the given entries (one key's accounts, any order). Fails with `BillsIncomplete`
 * only when the fee rule has to be inferred and an account's bills are not in time order.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromEntries = (
  entries: Iterable<LedgerEntry>,
  options: EventsOptions = {}
): Effect.Effect<LedgerEvents, BillsIncomplete> =>
  Effect.gen(function* () {
    const sorted = [...entries].sort(byTime)
    const given = options.feeRules ?? {}
    const known = sorted.every((entry) => given[entry.account] !== undefined)
    const rules = known ? given : { ...(yield* inferRules(sorted)), ...given }
    return classify(sorted, rules, options.transferWindowMillis ?? defaultTransferWindowMillis)
  })

/**
 * The events of a stream of entries (`Ledger.stream`, a store's entries). Transfers match across
 * the whole window, so the stream is read to its end first.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromStream = <E, R>(
  entries: Stream.Stream<LedgerEntry, E, R>,
  options: EventsOptions = {}
): Effect.Effect<LedgerEvents, E | BillsIncomplete, R> =>
  Effect.flatMap(Stream.runCollect(entries), (chunk) => fromEntries(chunk, options))

const accountOrder: Readonly<Record<string, number>> = { funding: 0, spot: 1, contract: 2 }

/** Oldest first; in one millisecond, funding before spot before contract, then by bill id. */
const byTime = (a: LedgerEntry, b: LedgerEntry): number =>
  a.bill.cTime.epochMillis - b.bill.cTime.epochMillis ||
  (accountOrder[a.account] ?? 9) - (accountOrder[b.account] ?? 9) ||
  compareIds(a.bill.billId, b.bill.billId)

const compareIds = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
