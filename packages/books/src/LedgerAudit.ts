/**
 * The audit: walks each account and coin's balance chain in time order (every bill must start
 * from the balance the one before ended with; a missing bill shows as a break between its
 * neighbours), finds the fee rule the data follows, and checks the funding count.
 *
 * @since 0.1.0
 */
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import {
  BillKind,
  BillsApi,
  type BillsApiShape,
  BillsIncomplete,
  type ContractBill,
  type FundingBill,
  operationOf,
  type SpotBill
} from "@account-bills/core"
import { AccountAudit, AuditReport, BillRef, ChainBreak, CoinAudit, type FeeRule } from "./AuditReport.js"
import { balanceBefore, type Direction, type FeeRuleName, feeRuleNames, makeChain } from "./internal/ledgerChain.js"
import { merged, resolveWindow, type Window } from "./internal/ledgerWindow.js"
import type { LedgerAccount, LedgerEntry, LedgerQuery } from "./LedgerEntry.js"

/**
 * Options of an audit.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuditOptions {
  /** Most breaks kept per account and coin (all are counted); default 100. */
  readonly maxBreaks?: number | undefined
  /**
   * Sees every entry the audit reads, in its order: so that one read serves the audit and
   * something else (the events of `LedgerEvents`).
   *
   * @since 0.2.0
   */
  readonly onEntry?: ((entry: LedgerEntry) => void) | undefined
}

type AnyBill = FundingBill | SpotBill | ContractBill

/** The coin id of a funding or spot bill; the futures account names its assets and has none. */
const coinIdOf = (bill: AnyBill): number | undefined => ("coinId" in bill ? bill.coinId : undefined)

interface CoinTrack {
  readonly account: LedgerAccount
  readonly coinId: number | undefined
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
    const coinId = coinIdOf(bill)
    // The futures account's chains run per asset, by name.
    const key = `${entry.account}:${coinId ?? bill.coinName}`
    const t = DateTime.toEpochMillis(bill.cTime)
    let track = tracks.get(key)
    if (track === undefined) {
      track = {
        account: entry.account,
        coinId,
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
            operation: operationOf[entry.account],
            millisecond: t,
            description: `the bills of coin ${coinId ?? bill.coinName} are not in time order (a bill at ${t} came after one at ${track.groupMillis}), so their chain cannot be walked`
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
                  expectedBefore: BigDecimal.normalize(earlier.afterAmount),
                  foundBefore: BigDecimal.normalize(balanceBefore(used, later))
                })
            )
            .sort((a, b) => DateTime.toEpochMillis(a.earlier.cTime) - DateTime.toEpochMillis(b.earlier.cTime))
          return new CoinAudit({
            account,
            ...(track.coinId === undefined ? {} : { coinId: track.coinId }),
            coinName: track.coinName,
            bills: track.bills,
            feeBills: track.feeBills,
            firstTime: first?.cTime ?? DateTime.unsafeMake(0),
            lastTime: last?.cTime ?? DateTime.unsafeMake(0),
            openingBalance: BigDecimal.normalize(first === undefined ? zero : balanceBefore(used, first)),
            firstBalance: BigDecimal.normalize(first?.afterAmount ?? zero),
            lastBalance: BigDecimal.normalize(last?.afterAmount ?? zero),
            rule,
            breakCount: result?.breakCount ?? 0,
            breaks
          })
        })
        .sort((a, b) => (a.coinId ?? 0) - (b.coinId ?? 0) || a.coinName.localeCompare(b.coinName))
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
 * the order given (default: all three).
 *
 * @since 0.1.0
 * @category utils
 */
export const auditEntries = <E, R>(
  entries: Stream.Stream<LedgerEntry, E, R>,
  options: AuditOptions & { readonly accounts?: ReadonlyArray<LedgerAccount> | undefined } = {}
): Effect.Effect<AuditReport, E | BillsIncomplete, R> =>
  Effect.gen(function* () {
    const auditor = makeAuditor(options.maxBreaks ?? 100)
    const onEntry = options.onEntry
    yield* Stream.runForEach(
      entries,
      onEntry === undefined
        ? auditor.add
        : (entry) => {
            onEntry(entry)
            return auditor.add(entry)
          }
    )
    const accounts = auditor.finish(options.accounts ?? BillKind.literals)
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
 * @category utils
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
