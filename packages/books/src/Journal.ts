/**
 * Journals for plain-text accounting: the events of a ledger written for hledger, Ledger or
 * Beancount, one transaction per event, with every balance the exchange reported asserted so the
 * tool itself proves that the entries add up (see `docs/books.md`).
 *
 * - One account per exchange account and coin (`Assets:WEEX:Spot:BTC`), and named accounts for
 *   fees, income, losses, the outside world, opening balances and suspense; every name can be
 *   changed with {@link AccountNames}.
 * - A trade books both legs, the coin received at the total cost (`@@`) of the coin given, and
 *   each fee as an expense in the coin charged; an internal transfer is one transaction between
 *   the two exchange accounts; deposits and withdrawals go against the outside world; an
 *   unpaired leg or an unknown business type against the suspense account, listed in
 *   {@link Journal.suspense}.
 * - hledger and Ledger: a balance assertion (`= afterAmount`) after each bill's postings.
 *   Beancount: a `balance` per account and coin for each day that saw a bill, dated the next day
 *   (a Beancount balance holds at the start of its day).
 * - Amounts exact, dates UTC (the time to the millisecond and the bill ids on every
 *   transaction), the same text for the same events on every run.
 *
 * @since 0.2.0
 */
import type * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { accountNameProblem, namedAccounts } from "./internal/journalNames.js"
import { plan } from "./internal/journalPlan.js"
import { type Names, render } from "./internal/journalText.js"
import type { EventAccount, LedgerEvents } from "./LedgerEvent.js"

/**
 * The tools a journal can be written for.
 *
 * @since 0.2.0
 * @category schemas
 */
export const JournalFormat = Schema.Literal("hledger", "ledger", "beancount")

/**
 * `"hledger"`, `"ledger"` or `"beancount"`: a value of the `JournalFormat` schema.
 *
 * @since 0.2.0
 * @category models
 */
export type JournalFormat = typeof JournalFormat.Type

/**
 * Names of the accounts a journal books against, each optional (the default stands in). The
 * exchange accounts (`spot`, `funding`, `futures`) are parents: each coin is an account below
 * them (`Assets:WEEX:Spot:BTC`). This is also the shape of the mapping file `bills export
 * --account-names FILE` reads (JSON).
 *
 * @since 0.2.0
 * @category schemas
 */
export const AccountNames = Schema.Struct({
  spot: Schema.optional(Schema.String),
  funding: Schema.optional(Schema.String),
  futures: Schema.optional(Schema.String),
  fees: Schema.optional(Schema.String),
  income: Schema.optional(Schema.String),
  losses: Schema.optional(Schema.String),
  external: Schema.optional(Schema.String),
  opening: Schema.optional(Schema.String),
  suspense: Schema.optional(Schema.String)
})

/**
 * A value of the `AccountNames` schema.
 *
 * @since 0.2.0
 * @category models
 */
export type AccountNames = typeof AccountNames.Type

/**
 * The names used where {@link AccountNames} gives none.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultAccountNames: Readonly<Record<keyof AccountNames, string>> = {
  spot: "Assets:WEEX:Spot",
  funding: "Assets:WEEX:Funding",
  futures: "Assets:WEEX:Futures",
  fees: "Expenses:WEEX:Fees",
  income: "Income:WEEX",
  losses: "Expenses:WEEX:Losses",
  external: "Equity:WEEX:External",
  opening: "Equity:WEEX:Opening",
  suspense: "Equity:WEEX:Suspense"
}

/**
 * An account name the chosen tool would not accept (or two roles given one name).
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidAccountName extends Schema.TaggedError<InvalidAccountName>(
  "@account-bills/core/InvalidAccountName"
)("InvalidAccountName", {
  format: JournalFormat,
  /** The key of {@link AccountNames} that holds the name. */
  key: Schema.String,
  name: Schema.String,
  rule: Schema.String
}) {
  override get message(): string {
    return `account name for ${this.key} (${JSON.stringify(this.name)}) does not suit ${this.format}: ${this.rule}`
  }
}

/**
 * What went to the suspense account: an unpaired leg, an unknown business type. Nothing else
 * may go there: each entry is the one bill of an `Unpaired` or `Other` event with that event's
 * own signed change, and every such bill has its entry. An event whose postings did not add up
 * to its balance change would land here too (the journal books the difference rather than break
 * a balance assertion); `test/journal/JournalSuspense.test.ts` holds every journal to the rule,
 * so such an entry is a bug, never an expected row.
 *
 * @since 0.2.0
 * @category models
 */
export interface SuspenseEntry {
  readonly billIds: ReadonlyArray<string>
  readonly account: EventAccount
  readonly coin: string
  /** Signed: the balance change booked against suspense. */
  readonly amount: BigDecimal.BigDecimal
  readonly reason: string
}

/**
 * A written journal.
 *
 * @since 0.2.0
 * @category models
 */
export interface Journal {
  readonly format: JournalFormat
  /** The file's text. */
  readonly text: string
  readonly transactions: number
  /** hledger and Ledger: balance assertions written; Beancount: `balance` directives. */
  readonly assertions: number
  /** What was booked against the suspense account, to list on stderr. */
  readonly suspense: ReadonlyArray<SuspenseEntry>
}

/**
 * Options of {@link write}.
 *
 * @since 0.2.0
 * @category models
 */
export interface JournalOptions {
  readonly accountNames?: AccountNames | undefined
}

const assetKey: Readonly<Record<EventAccount, keyof AccountNames>> = {
  funding: "funding",
  spot: "spot",
  contract: "futures"
}

/** The names to write, each checked against the tool's grammar. */
const namesFor = (format: JournalFormat, given: AccountNames): Effect.Effect<Names, InvalidAccountName> =>
  Effect.gen(function* () {
    const chosen = Object.fromEntries(
      Object.entries(defaultAccountNames).map(([key, name]) => [key, given[key as keyof AccountNames] ?? name])
    ) as Record<keyof AccountNames, string>
    const seen = new Map<string, string>()
    for (const key of Object.keys(defaultAccountNames) as Array<keyof AccountNames>) {
      const name = chosen[key]
      const problem = accountNameProblem(format, name)
      if (problem !== undefined) return yield* new InvalidAccountName({ format, key, name, rule: problem })
      const other = seen.get(name)
      if (other !== undefined) {
        return yield* new InvalidAccountName({ format, key, name, rule: `${other} has this name already` })
      }
      seen.set(name, key)
    }
    const assets = Object.fromEntries(
      Object.entries(assetKey).map(([account, key]) => [account, chosen[key]])
    ) as Record<EventAccount, string>
    const named = Object.fromEntries(namedAccounts.map((key) => [key, chosen[key]])) as Names["named"]
    return { assets, named }
  })

/**
 * Checks account names against `format`'s rules (and that no two roles share a name), so a
 * command can refuse a bad mapping before it fetches anything.
 *
 * @since 0.2.0
 * @category utils
 */
export const checkAccountNames = (
  format: JournalFormat,
  names: AccountNames
): Effect.Effect<void, InvalidAccountName> => Effect.asVoid(namesFor(format, names))

/**
 * Writes the events as a journal for `format`. Fails only on an account name the tool would not
 * accept.
 *
 * @since 0.2.0
 * @category constructors
 */
export const write: (
  format: JournalFormat,
  events: LedgerEvents,
  options?: JournalOptions
) => Effect.Effect<Journal, InvalidAccountName> = Effect.fn("Journal.write")(function* (
  format: JournalFormat,
  events: LedgerEvents,
  options: JournalOptions = {}
) {
  const names = yield* namesFor(format, options.accountNames ?? {})
  const planned = plan(events)
  const dayBalances = planned.transactions.reduce((sum, t) => sum + t.endOfDay.length, 0)
  return {
    format,
    text: render(format, planned, names),
    transactions: planned.transactions.length,
    assertions: format === "beancount" ? dayBalances : planned.assertions,
    suspense: planned.suspense
  }
})
