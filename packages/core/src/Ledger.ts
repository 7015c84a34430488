/**
 * The ledger of both accounts: funding and spot bills as one time-ordered stream, and an audit
 * that proves an export complete from the data itself. Every bill carries the balance after it,
 * so per account and coin each bill must start from the balance the one before ended with; a
 * missing bill shows as a break between its neighbours.
 *
 * @since 0.1.0
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { FundingBill, SpotBill } from "./Bill.js"
import { BillsApi, type BillsApiShape } from "./BillsApi.js"
import { type BillsError, BillsIncomplete } from "./Errors.js"
import { balanceBefore, type Direction, type FeeRuleName, feeRuleNames, makeChain } from "./internal/ledgerChain.js"
import { mergeByTime } from "./internal/ledgerMerge.js"
import { validate } from "./internal/validate.js"
import { startNotAfterEnd } from "./internal/windowOrder.js"
import { TimeBound, type TimeInput } from "./Params.js"
import type { FundingPage } from "./Streams.js"

/**
 * The two accounts whose bills the ledger holds.
 *
 * @since 0.1.0
 */
export const LedgerAccount = Schema.Literal("funding", "spot")

/**
 * @since 0.1.0
 */
export type LedgerAccount = typeof LedgerAccount.Type

/**
 * What a bill does, whatever bizType the account writes it with.
 *
 * @since 0.1.0
 */
export const EntryKind = Schema.Literal("deposit", "withdrawal", "transfer", "trade", "fee", "other")

/**
 * @since 0.1.0
 */
export type EntryKind = typeof EntryKind.Type

const kinds: Readonly<Record<string, EntryKind>> = {
  deposit: "deposit",
  withdraw: "withdrawal",
  transfer_in: "transfer",
  transfer_out: "transfer",
  buy: "trade",
  sell: "trade",
  c2c_buy: "trade",
  c2c_sell: "trade",
  trade_in: "trade",
  trade_out: "trade",
  order_fill_fee_income: "fee",
  order_liquidate_fee_income: "fee"
}

/**
 * The kind of a bizType: the documented values by table; undocumented ones that name a fee
 * are fees, the rest (`airdrop_reward`, `system_issued`, ...) are `other`.
 *
 * @since 0.1.0
 */
export const kindOf = (bizType: string): EntryKind => kinds[bizType] ?? (/fee/i.test(bizType) ? "fee" : "other")

/**
 * A funding bill in the ledger.
 *
 * @since 0.1.0
 */
export interface FundingEntry {
  readonly account: "funding"
  readonly kind: EntryKind
  /** The bizType as the exchange sent it. */
  readonly bizType: string
  readonly bill: FundingBill
}

/**
 * A spot bill in the ledger.
 *
 * @since 0.1.0
 */
export interface SpotEntry {
  readonly account: "spot"
  readonly kind: EntryKind
  /** The bizType as the exchange sent it. */
  readonly bizType: string
  readonly bill: SpotBill
}

/**
 * One bill of either account, tagged with its account and kind.
 *
 * @since 0.1.0
 */
export type LedgerEntry = FundingEntry | SpotEntry

/**
 * A funding bill as a ledger entry.
 *
 * @since 0.1.0
 */
export const fundingEntry = (bill: FundingBill): FundingEntry => ({
  account: "funding",
  kind: kindOf(bill.bizType),
  bizType: bill.bizType,
  bill
})

/**
 * A spot bill as a ledger entry.
 *
 * @since 0.1.0
 */
export const spotEntry = (bill: SpotBill): SpotEntry => ({
  account: "spot",
  kind: kindOf(bill.bizType),
  bizType: bill.bizType,
  bill
})

const millisOf = (entry: LedgerEntry): number => DateTime.toEpochMillis(entry.bill.cTime)

/**
 * What the ledger covers: the half-open window `[from, to)`, optionally one coin, one or both
 * accounts (default both). `to` defaults to, and is capped at, the time the ledger starts.
 *
 * @since 0.1.0
 */
export interface LedgerQuery {
  readonly from?: TimeInput | undefined
  readonly to?: TimeInput | undefined
  readonly coinId?: number | undefined
  readonly account?: LedgerAccount | "all" | undefined
}

const LedgerQuerySchema = Schema.Struct({
  from: Schema.optional(TimeBound),
  to: Schema.optional(TimeBound),
  coinId: Schema.optional(Schema.Int.pipe(Schema.positive({ message: () => "must be a positive integer" }))),
  account: Schema.optional(Schema.Literal("funding", "spot", "all"))
}).pipe(Schema.filter((query) => startNotAfterEnd("from", "to", query.from, query.to)))

interface Window {
  readonly accounts: ReadonlyArray<LedgerAccount>
  /** As given, epoch ms. */
  readonly from: number | undefined
  /** Pinned: both accounts are read up to the same instant. */
  readonly end: number
  readonly coinId: number | undefined
}

const resolveWindow = (query: LedgerQuery): Effect.Effect<Window, BillsError> =>
  Effect.gen(function* () {
    const operation = query.account === "spot" ? "spotBills" : "fundingBills"
    const valid = yield* validate(operation, LedgerQuerySchema, {
      from: query.from,
      to: query.to,
      coinId: query.coinId,
      account: query.account
    })
    const now = yield* Clock.currentTimeMillis
    const account = valid.account ?? "all"
    return {
      accounts: account === "all" ? ["funding", "spot"] : [account],
      from: valid.from,
      end: Math.min(valid.to ?? now, now),
      coinId: valid.coinId
    }
  })

const merged = (
  api: BillsApiShape,
  window: Window,
  onFundingPage: (page: FundingPage) => Effect.Effect<void>
): Stream.Stream<LedgerEntry, BillsError> => {
  // A window entirely in the future is empty; `from` is clamped so the walks agree without asking.
  const query = {
    from: window.from === undefined ? undefined : Math.min(window.from, window.end),
    to: window.end,
    coinId: window.coinId
  }
  const funding: Stream.Stream<LedgerEntry, BillsError> = window.accounts.includes("funding")
    ? api.streamFundingPages(query).pipe(
        Stream.tap(onFundingPage),
        Stream.mapConcat((page) => page.bills.map(fundingEntry))
      )
    : Stream.empty
  const spot: Stream.Stream<LedgerEntry, BillsError> = window.accounts.includes("spot")
    ? Stream.map(api.streamSpotBills(query), spotEntry)
    : Stream.empty
  return mergeByTime({ operation: "fundingBills", stream: funding }, { operation: "spotBills", stream: spot }, millisOf)
}

/**
 * Funding and spot bills of the query merged into one stream in time order, fetched as the
 * stream is pulled (taking a few entries costs a request per account, not a crawl).
 *
 * The order is the exchange's: oldest first or newest first, whichever way the exchange lists,
 * learned from the data; at equal times funding comes first. The stream fails with
 * `BillsIncomplete` rather than emit out of order if an account is not listed in time order.
 *
 * @since 0.1.0
 */
export const stream = (query: LedgerQuery = {}): Stream.Stream<LedgerEntry, BillsError, BillsApi> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const api = yield* BillsApi
      const window = yield* resolveWindow(query)
      return merged(api, window, () => Effect.void)
    })
  )

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

/**
 * How a bill's `fees` enters its balance, as the audit found it:
 * `delta-includes-fees` (after = before + delta), `fees-subtracted` (after = before + delta -
 * fees), `fees-added` (after = before + delta + fees, for fees written as negative amounts), or
 * `undetermined` when the data cannot tell (no fees, or every rule fits equally well).
 *
 * @since 0.1.0
 */
export const FeeRule = Schema.Literal("delta-includes-fees", "fees-subtracted", "fees-added", "undetermined")

/**
 * @since 0.1.0
 */
export type FeeRule = typeof FeeRule.Type

/**
 * Each rule as a formula, for people.
 *
 * @since 0.1.0
 */
export const feeRuleFormula: Readonly<Record<FeeRule, string>> = {
  "delta-includes-fees": "after = before + delta",
  "fees-subtracted": "after = before + delta - fees",
  "fees-added": "after = before + delta + fees",
  undetermined: "undetermined"
}

/** Amounts in the report are normalized, so that a stored report reads back equal. */
const canonical = BigDecimal.normalize

/**
 * The fields of a bill that the audit speaks about.
 *
 * @since 0.1.0
 */
export class BillRef extends Schema.Class<BillRef>("@account-bills/BillRef")({
  billId: Schema.String,
  cTime: Schema.DateTimeUtc,
  bizType: Schema.String,
  deltaAmount: Schema.BigDecimal,
  fees: Schema.BigDecimal,
  afterAmount: Schema.BigDecimal
}) {
  /** The reference to `bill`. */
  static fromBill(bill: FundingBill | SpotBill): BillRef {
    return new BillRef({
      billId: bill.billId,
      cTime: bill.cTime,
      bizType: bill.bizType,
      deltaAmount: canonical(bill.deltaAmount),
      fees: canonical(bill.fees),
      afterAmount: canonical(bill.afterAmount)
    })
  }
}

/**
 * A break in the chain: `later` does not start from the balance `earlier` ended with, so bills
 * between them are missing (or one of them is wrong).
 *
 * @since 0.1.0
 */
export class ChainBreak extends Schema.Class<ChainBreak>("@account-bills/ChainBreak")({
  /** The last bill before the break. */
  earlier: BillRef,
  /** The first bill after the break. */
  later: BillRef,
  /** The balance `later` should start from: `earlier.afterAmount`. */
  expectedBefore: Schema.BigDecimal,
  /** The balance `later` starts from under the rule: its afterAmount less its change. */
  foundBefore: Schema.BigDecimal
}) {
  /** What the bills missing between the two would add up to: found minus expected. */
  get difference(): BigDecimal.BigDecimal {
    return BigDecimal.normalize(BigDecimal.subtract(this.foundBefore, this.expectedBefore))
  }
}

/**
 * The audit of one account and coin.
 *
 * @since 0.1.0
 */
export class CoinAudit extends Schema.Class<CoinAudit>("@account-bills/CoinAudit")({
  account: LedgerAccount,
  coinId: Schema.Int,
  coinName: Schema.String,
  bills: Schema.NonNegativeInt,
  /** Bills with non-zero fees: the evidence for the rule. */
  feeBills: Schema.NonNegativeInt,
  firstTime: Schema.DateTimeUtc,
  lastTime: Schema.DateTimeUtc,
  /** The balance before the earliest bill (under the rule). */
  openingBalance: Schema.BigDecimal,
  /** The balance after the earliest bill. */
  firstBalance: Schema.BigDecimal,
  /** The balance after the latest bill. */
  lastBalance: Schema.BigDecimal,
  rule: FeeRule,
  breakCount: Schema.NonNegativeInt,
  /** The breaks found first, at most the audit's `maxBreaks`, earliest first. */
  breaks: Schema.Array(ChainBreak)
}) {
  /** The chain holds from the first bill to the last. */
  get whole(): boolean {
    return this.breakCount === 0
  }
}

/**
 * The audit of one account.
 *
 * @since 0.1.0
 */
export class AccountAudit extends Schema.Class<AccountAudit>("@account-bills/AccountAudit")({
  account: LedgerAccount,
  bills: Schema.NonNegativeInt,
  /** The rule over all coins of the account. */
  rule: FeeRule,
  /** How many bills the exchange counts in the window (funding only: spot has no count). */
  total: Schema.optional(Schema.NonNegativeInt),
  coins: Schema.Array(CoinAudit)
}) {
  /** Every coin's chain holds, and the count matches where there is one. */
  get whole(): boolean {
    return this.coins.every((coin) => coin.whole) && (this.total === undefined || this.total === this.bills)
  }
}

/**
 * The result of an audit.
 *
 * @since 0.1.0
 */
export class AuditReport extends Schema.Class<AuditReport>("@account-bills/AuditReport")({
  from: Schema.optional(Schema.DateTimeUtc),
  /** The end of the window as read (exclusive). */
  to: Schema.optional(Schema.DateTimeUtc),
  coinId: Schema.optional(Schema.Int),
  accounts: Schema.Array(AccountAudit),
  /** Every chain holds and every count matches. */
  whole: Schema.Boolean
}) {}

/**
 * Options of an audit.
 *
 * @since 0.1.0
 */
export interface AuditOptions {
  /** Most breaks kept per account and coin (all are counted); default 100. */
  readonly maxBreaks?: number | undefined
}

// ---------------------------------------------------------------------------------------------
// Audit
// ---------------------------------------------------------------------------------------------

type AnyBill = FundingBill | SpotBill

interface CoinTrack {
  readonly account: LedgerAccount
  readonly coinId: number
  readonly coinName: string
  bills: number
  feeBills: number
  direction: Direction | undefined
  groupMillis: number
  group: Array<AnyBill>
  readonly chains: ReadonlyArray<readonly [FeeRuleName, ReturnType<typeof makeChain<AnyBill>>]>
}

const zero = BigDecimal.make(0n, 0)

/** The rule with the fewest breaks, if exactly one has the fewest. */
const bestRule = (counts: ReadonlyMap<FeeRuleName, number>): ReadonlyArray<FeeRuleName> => {
  const fewest = Math.min(...counts.values())
  return feeRuleNames.filter((rule) => counts.get(rule) === fewest)
}

const makeAuditor = (maxBreaks: number) => {
  const tracks = new Map<string, CoinTrack>()

  const close = (track: CoinTrack, direction: Direction) => {
    for (const [, chain] of track.chains) chain.add(track.group, direction)
    track.group = []
  }

  const add = (entry: LedgerEntry): Effect.Effect<void, BillsIncomplete> => {
    const bill = entry.bill
    const key = `${entry.account}:${bill.coinId}`
    const t = DateTime.toEpochMillis(bill.cTime)
    let track = tracks.get(key)
    if (track === undefined) {
      track = {
        account: entry.account,
        coinId: bill.coinId,
        coinName: bill.coinName,
        bills: 0,
        feeBills: 0,
        direction: undefined,
        groupMillis: t,
        group: [],
        chains: feeRuleNames.map((rule) => [rule, makeChain<AnyBill>(rule, maxBreaks)] as const)
      }
      tracks.set(key, track)
    }
    if (track.group.length > 0 && t !== track.groupMillis) {
      const seen: Direction = t > track.groupMillis ? "ascending" : "descending"
      if (track.direction !== undefined && track.direction !== seen) {
        return Effect.fail(
          new BillsIncomplete({
            operation: entry.account === "funding" ? "fundingBills" : "spotBills",
            millisecond: t,
            description: `the bills of coin ${bill.coinId} are not in time order (a bill at ${t} came after one at ${track.groupMillis}), so their chain cannot be walked`
          })
        )
      }
      track.direction = seen
      close(track, seen)
    }
    track.groupMillis = t
    track.group.push(bill)
    track.bills++
    if (!BigDecimal.isZero(bill.fees)) track.feeBills++
    return Effect.void
  }

  const finish = (accounts: ReadonlyArray<LedgerAccount>): ReadonlyArray<AccountAudit> => {
    const results = [...tracks.values()].map((track) => {
      close(track, track.direction ?? "ascending")
      return { track, results: new Map(track.chains.map(([rule, chain]) => [rule, chain.finish()] as const)) }
    })
    return accounts.map((account) => {
      const ofAccount = results.filter(({ track }) => track.account === account)
      const evidence = ofAccount.filter(({ track }) => track.feeBills > 0)
      const accountBest = bestRule(
        new Map(
          feeRuleNames.map((rule) => [
            rule,
            evidence.reduce((sum, { results }) => sum + (results.get(rule)?.breakCount ?? 0), 0)
          ])
        )
      )
      const accountRule: FeeRule =
        evidence.length > 0 && accountBest.length === 1 ? (accountBest[0] as FeeRule) : "undetermined"
      const coins = ofAccount
        .map(({ results, track }) => {
          const best = bestRule(new Map([...results].map(([rule, result]) => [rule, result.breakCount])))
          const rule: FeeRule = track.feeBills > 0 && best.length === 1 ? (best[0] as FeeRuleName) : "undetermined"
          // When the coin cannot tell, its breaks are read under the account's rule if that fits as well.
          const used: FeeRuleName =
            rule !== "undetermined"
              ? rule
              : accountRule !== "undetermined" && best.includes(accountRule)
                ? accountRule
                : (best[0] as FeeRuleName)
          const result = results.get(used)
          const first = result?.first
          const last = result?.last
          const breaks = [...(result?.breaks ?? [])]
            .map(
              ({ earlier, later }) =>
                new ChainBreak({
                  earlier: BillRef.fromBill(earlier),
                  later: BillRef.fromBill(later),
                  expectedBefore: canonical(earlier.afterAmount),
                  foundBefore: canonical(balanceBefore(used, later))
                })
            )
            .sort((a, b) => DateTime.toEpochMillis(a.earlier.cTime) - DateTime.toEpochMillis(b.earlier.cTime))
          return new CoinAudit({
            account,
            coinId: track.coinId,
            coinName: track.coinName,
            bills: track.bills,
            feeBills: track.feeBills,
            firstTime: first?.cTime ?? DateTime.unsafeMake(0),
            lastTime: last?.cTime ?? DateTime.unsafeMake(0),
            openingBalance: canonical(first === undefined ? zero : balanceBefore(used, first)),
            firstBalance: canonical(first?.afterAmount ?? zero),
            lastBalance: canonical(last?.afterAmount ?? zero),
            rule,
            breakCount: result?.breakCount ?? 0,
            breaks
          })
        })
        .sort((a, b) => a.coinId - b.coinId)
      return new AccountAudit({
        account,
        bills: coins.reduce((sum, coin) => sum + coin.bills, 0),
        rule: accountRule,
        coins
      })
    })
  }

  return { add, finish }
}

/**
 * Audits entries from any source (an export read back, a test fixture): they must come in
 * time order, oldest first or newest first, as `stream` gives them. Accounts are reported in
 * the order given (default: both).
 *
 * @since 0.1.0
 */
export const auditEntries = <E, R>(
  entries: Stream.Stream<LedgerEntry, E, R>,
  options: AuditOptions & { readonly accounts?: ReadonlyArray<LedgerAccount> | undefined } = {}
): Effect.Effect<AuditReport, E | BillsIncomplete, R> =>
  Effect.gen(function* () {
    const auditor = makeAuditor(options.maxBreaks ?? 100)
    yield* Stream.runForEach(entries, auditor.add)
    const accounts = auditor.finish(options.accounts ?? ["funding", "spot"])
    return new AuditReport({ accounts, whole: accounts.every((account) => account.whole) })
  })

/**
 * Audits the ledger of the query: reads both accounts (or one) once, walks each account and
 * coin's balance chain in time order, finds the fee rule the data follows, and checks the
 * funding count against the exchange's `total`.
 *
 * Within one millisecond the exchange's order means nothing, so the audit lays out each such
 * group in an order in which the chain holds, when there is one.
 *
 * @since 0.1.0
 */
export const audit = Effect.fn("Ledger.audit")(function* (query: LedgerQuery = {}, options: AuditOptions = {}) {
  const api = yield* BillsApi
  const window = yield* resolveWindow(query)
  yield* Effect.annotateCurrentSpan({ accounts: window.accounts.join(","), from: window.from, end: window.end })
  const lastTotal = yield* Ref.make<number | undefined>(undefined)
  const report = yield* auditEntries(
    merged(api, window, (page) => Ref.set(lastTotal, page.total)),
    { ...options, accounts: window.accounts }
  )
  const accounts: Array<AccountAudit> = []
  for (const account of report.accounts) {
    if (account.account !== "funding") {
      accounts.push(account)
      continue
    }
    const total = yield* fundingCount(api, window, (yield* Ref.get(lastTotal)) ?? 0, account.bills)
    accounts.push(new AccountAudit({ ...account, total }))
  }
  return new AuditReport({
    ...(window.from === undefined ? {} : { from: DateTime.unsafeMake(window.from) }),
    to: DateTime.unsafeMake(window.end),
    ...(window.coinId === undefined ? {} : { coinId: window.coinId }),
    accounts,
    whole: accounts.every((account) => account.whole)
  })
})

/**
 * The exchange's count of funding bills in `[from, end)`. The walk asks for a window widened by
 * a millisecond on each side (the exchange does not say whether its bounds are inclusive), so
 * its `total` (from the last page: bills booked during the walk count too) may include bills at
 * `from - 1` and at `end`; when it differs from what was received, those two milliseconds are
 * counted on their own (a one-millisecond window holds exactly those bills if bounds are
 * inclusive and none if not) and taken off.
 */
const fundingCount = (api: BillsApiShape, window: Window, total: number, received: number) =>
  Effect.gen(function* () {
    if (total === received) return total
    const countAt = (millis: number) =>
      Effect.map(
        api.fundingBills({ coinId: window.coinId, startTime: millis, endTime: millis, pageSize: 1 }),
        (page) => page.total
      )
    const from = window.from === undefined ? 0 : Math.min(window.from, window.end)
    const before = from > 0 ? yield* countAt(from - 1) : 0
    const after = yield* countAt(window.end)
    return total - before - after
  })
