/**
 * What the page shows, read from the store: the accounts, each account's overview (per kind and
 * coin the bills, their first and last time, the balance the exchange reported last; per kind
 * what the store holds completely and when it was last synced), the balance series, pages of
 * bills, a bill's raw record, the events and the audit. Every answer is plain JSON data: amounts
 * the exchange's decimal text, times ISO-8601.
 *
 * @since 0.1.0
 */
import { Ledger, LedgerEvents, TaxFiles } from "@account-bills/books"
import type { BillsApi } from "@account-bills/core"
import {
  type BillCursor,
  type BillKind,
  BillsStore,
  type CoinGroup,
  type StoreCoverage,
  StoreBillsApi,
  StoreDiskFull,
  StoreNotSynced,
  StoreReader,
  StoreUnavailable
} from "@account-bills/store"
import * as BigDecimal from "effect/BigDecimal"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { eventRow, type EventRow } from "./internal/eventRows.js"
import { ViewBadRequest } from "./ViewRequest.js"

const kinds: ReadonlyArray<BillKind> = ["funding", "spot", "contract"]

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * An account of the store.
 *
 * @since 0.1.0
 * @category models
 */
export interface AccountRow {
  readonly id: string
  readonly label: string | null
}

/**
 * What the store holds of one kind: the window held completely (`null` until a sync finished),
 * the windows that aged out before a sync read them, and whether a sync is under way or
 * unfinished. `lastSynced` is the end of what the last finished sync read.
 *
 * @since 0.1.0
 * @category models
 */
export interface KindRow {
  readonly kind: BillKind
  readonly bills: number
  readonly coveredFrom: string | null
  readonly lastSynced: string | null
  readonly unfinished: boolean
  readonly agedOut: ReadonlyArray<{ readonly from: string; readonly to: string }>
}

/**
 * One kind and coin of the overview.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoinRow {
  readonly kind: BillKind
  readonly coin: string
  readonly coinId: number | null
  readonly bills: number
  readonly firstTime: string
  readonly lastTime: string
  /** The exchange's own text of the balance after the latest bill. */
  readonly lastBalance: string
  readonly lastBillId: string
}

/**
 * `/api/accounts`: the store (its path, or its URL without password), its accounts, the one
 * chosen, and that account's overview.
 *
 * @since 0.1.0
 * @category models
 */
export interface Overview {
  readonly store: string
  readonly accounts: ReadonlyArray<AccountRow>
  readonly account: string
  readonly kinds: ReadonlyArray<KindRow>
  readonly coins: ReadonlyArray<CoinRow>
}

/**
 * `/api/balances`: per kind that holds the coin, its series of reported balances (`[epoch ms,
 * balance]`, the balance a number for drawing; at most the points asked, each bucket drawn by its
 * lowest and highest balance when there are more bills).
 *
 * @since 0.1.0
 * @category models
 */
export interface Balances {
  readonly coin: string
  readonly from: string
  readonly to: string
  readonly series: ReadonlyArray<{
    readonly kind: BillKind
    readonly bills: number
    readonly downsampled: boolean
    readonly points: ReadonlyArray<readonly [number, number]>
  }>
}

/**
 * A bill as the table lists it.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillRow {
  readonly kind: BillKind
  readonly billId: string
  readonly time: string
  readonly coin: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
}

/**
 * `/api/bills`: a page, and the cursor of the next (`null` on the last).
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsPage {
  readonly bills: ReadonlyArray<BillRow>
  readonly next: string | null
}

/**
 * What the filters of the bills are, decoded.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsQuery {
  readonly kind?: BillKind | undefined
  readonly coin?: string | undefined
  readonly bizType?: string | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/**
 * `/api/events`: the events of the account's bills in the window, from `LedgerEvents` (the code
 * the tax files are written from): how many of each kind, the flagged ones (legs unpaired,
 * transfers unmatched, types unknown), whether they conserve every balance change, and the
 * events themselves, newest first, up to `limit`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Events {
  readonly bills: number
  readonly total: number
  readonly kinds: Readonly<Record<string, number>>
  readonly flagged: number
  readonly conserved: boolean
  readonly events: ReadonlyArray<EventRow>
  readonly truncated: boolean
}

/**
 * One finding of the audit: a break in a balance chain (bills missing between two), a window that
 * aged out of the exchange's history before a sync read it, a sync left unfinished, a count that
 * does not match.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuditGap {
  readonly kind: BillKind
  readonly coin: string | null
  readonly what: "break" | "aged-out" | "unfinished" | "count"
  readonly from: string | null
  readonly to: string | null
  readonly text: string
}

/**
 * `/api/audit`: whether the history is whole, and every gap named with its times.
 *
 * @since 0.1.0
 * @category models
 */
export interface Audit {
  readonly whole: boolean
  readonly coins: ReadonlyArray<{
    readonly kind: BillKind
    readonly coin: string
    readonly bills: number
    readonly whole: boolean
    readonly rule: string
  }>
  readonly gaps: ReadonlyArray<AuditGap>
}

/** The events listed at most in one answer. */
const eventsLimit = 1_000

/** How long an account's groups are reused to check a coin: a filter change is then one query. */
const groupsTtl = Duration.seconds(5)

/**
 * What the view reads.
 *
 * @since 0.1.0
 * @category models
 */
export interface ViewDataShape {
  readonly store: string
  /** The account asked for, or the default one (`--label`, else the only or the first). */
  readonly account: (asked: string | undefined) => Effect.Effect<string, ViewBadRequest | ViewStoreFailure>
  readonly accounts: Effect.Effect<ReadonlyArray<AccountRow>, ViewStoreFailure>
  readonly labelOf: (account: string) => Effect.Effect<string | undefined, ViewStoreFailure>
  readonly overview: (account: string) => Effect.Effect<Overview, ViewStoreFailure>
  /** The coin's id, for the export's `--coin-id`, or a refusal naming an unknown coin. */
  readonly coin: (account: string, coin: string) => Effect.Effect<CoinGroupSummary, ViewBadRequest | ViewStoreFailure>
  readonly balances: (
    account: string,
    coin: string,
    window: { readonly from?: number | undefined; readonly to?: number | undefined; readonly points: number }
  ) => Effect.Effect<Balances, ViewBadRequest | ViewStoreFailure>
  readonly bills: (
    account: string,
    query: BillsQuery,
    after: BillCursor | undefined,
    limit: number
  ) => Effect.Effect<BillsPage, ViewBadRequest | ViewStoreFailure>
  readonly raw: (
    account: string,
    kind: BillKind,
    billId: string
  ) => Effect.Effect<Option.Option<string>, ViewStoreFailure>
  readonly events: (
    account: string,
    window: { readonly from?: number | undefined; readonly to?: number | undefined }
  ) => Effect.Effect<Events, ViewStoreFailure>
  readonly audit: (account: string) => Effect.Effect<Audit, ViewStoreFailure>
}

/**
 * A coin of an account: its id where the funding or spot account gives one, and the kinds that
 * hold it.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoinGroupSummary {
  readonly coinId: number | undefined
  readonly groups: ReadonlyArray<CoinGroup>
}

/**
 * The store failed while the view read it (unreachable, damaged): the page's 503, in the store's
 * own words.
 *
 * @since 0.1.0
 * @category errors
 */
export type ViewStoreFailure = StoreUnavailable | StoreDiskFull | StoreNotSynced

const isStoreFailure = (error: unknown): error is ViewStoreFailure =>
  error instanceof StoreUnavailable || error instanceof StoreDiskFull || error instanceof StoreNotSynced

const coverageRow = (coverage: StoreCoverage): KindRow => ({
  kind: coverage.kind,
  bills: coverage.bills,
  coveredFrom: coverage.coveredFrom === null ? null : iso(coverage.coveredFrom),
  lastSynced: coverage.coveredTo === null ? null : iso(coverage.coveredTo),
  unfinished: coverage.unfinished,
  agedOut: coverage.agedOut.map((gap) => ({ from: iso(gap.from), to: iso(gap.to) }))
})

const cursorText = (row: { readonly time: number; readonly kind: BillKind; readonly billId: string }) =>
  `${row.time}.${row.kind}.${row.billId}`

/**
 * The view's reads.
 *
 * @since 0.1.0
 * @category tags
 */
export class ViewData extends Context.Tag("@account-bills/view/ViewData")<ViewData, ViewDataShape>() {
  /** The reads of the store in context; `label` chooses the account shown first. */
  static readonly make = (options: { readonly label?: string | undefined }) =>
    Effect.gen(function* () {
      const store = yield* BillsStore
      const reader = yield* StoreReader
      const context = yield* Effect.context<BillsStore>()

      const accounts = store.accounts
      const account = Effect.fn("ViewData.account")(function* (asked: string | undefined) {
        const held = yield* accounts
        if (asked !== undefined) {
          if (held.some((row) => row.id === asked)) return asked
          return yield* new ViewBadRequest({ reason: `account: the store holds no account ${JSON.stringify(asked)}` })
        }
        const chosen = held.find((row) => options.label !== undefined && row.label === options.label) ?? held[0]
        if (chosen === undefined)
          return yield* new ViewBadRequest({ reason: "the store holds no account; sync into it first" })
        return chosen.id
      })

      // The groups are one GROUP BY over the account's bills: kept a few seconds per account, so
      // that checking a coin on every filter change does not repeat it.
      const groupsCache = new Map<string, Effect.Effect<ReadonlyArray<CoinGroup>, ViewStoreFailure>>()
      const groupsOf = (id: string) =>
        Effect.suspend(() => {
          const cached = groupsCache.get(id)
          if (cached !== undefined) return cached
          return Effect.flatMap(Effect.cachedWithTTL(reader.overview(id), groupsTtl), (fresh) => {
            groupsCache.set(id, fresh)
            return fresh
          })
        })

      const overview = Effect.fn("ViewData.overview")(function* (id: string) {
        const [held, groups, coverage] = yield* Effect.all([
          accounts,
          groupsOf(id),
          Effect.forEach(kinds, (kind) => store.coverage(id, kind))
        ])
        return {
          store: store.target,
          accounts: held.map((row) => ({ id: row.id, label: row.label ?? null })),
          account: id,
          kinds: coverage.map(coverageRow),
          coins: [...groups]
            .sort((a, b) => kinds.indexOf(a.kind) - kinds.indexOf(b.kind) || a.coinName.localeCompare(b.coinName))
            .map(
              (group): CoinRow => ({
                kind: group.kind,
                coin: group.coinName,
                coinId: group.coinId ?? null,
                bills: group.bills,
                firstTime: iso(group.firstTime),
                lastTime: iso(group.lastTime),
                lastBalance: group.lastBalance,
                lastBillId: group.lastBillId
              })
            )
        } satisfies Overview
      })

      const coin = Effect.fn("ViewData.coin")(function* (id: string, name: string) {
        const groups = (yield* groupsOf(id)).filter((group) => group.coinName === name)
        if (groups.length === 0) {
          return yield* new ViewBadRequest({ reason: `coin: the account holds no bills of ${name}` })
        }
        return { coinId: groups.find((group) => group.coinId !== undefined)?.coinId, groups }
      })

      const balances = Effect.fn("ViewData.balances")(function* (
        id: string,
        name: string,
        window: { readonly from?: number | undefined; readonly to?: number | undefined; readonly points: number }
      ) {
        const { groups } = yield* coin(id, name)
        const from = window.from ?? Math.min(...groups.map((group) => group.firstTime))
        // `to` is exclusive, as everywhere else; the series reads inclusive bounds.
        const to = window.to === undefined ? Math.max(...groups.map((group) => group.lastTime)) : window.to - 1
        const series = yield* Effect.forEach(
          kinds.filter((kind) => groups.some((group) => group.kind === kind)),
          (kind) =>
            Effect.map(
              reader.series({ account: id, kind, coinName: name, from, to, maxPoints: window.points }),
              (found) => ({ kind, ...found })
            )
        )
        return { coin: name, from: iso(from), to: iso(to + 1), series } satisfies Balances
      })

      const bills = Effect.fn("ViewData.bills")(function* (
        id: string,
        query: BillsQuery,
        after: BillCursor | undefined,
        limit: number
      ) {
        if (query.coin !== undefined) yield* coin(id, query.coin)
        const rows = yield* reader.page(
          id,
          {
            kinds: query.kind === undefined ? kinds : [query.kind],
            coinName: query.coin,
            bizType: query.bizType,
            from: query.from,
            to: query.to
          },
          after,
          limit + 1
        )
        const shown = rows.slice(0, limit)
        const last = shown.at(-1)
        return {
          bills: shown.map(
            (row): BillRow => ({
              kind: row.kind,
              billId: row.billId,
              time: iso(row.time),
              coin: row.coinName,
              bizType: row.bizType,
              deltaAmount: row.deltaAmount,
              afterAmount: row.afterAmount,
              fees: row.fees
            })
          ),
          next: rows.length > limit && last !== undefined ? cursorText(last) : null
        } satisfies BillsPage
      })

      /** The account's bills as the client reads them from the store: every bill held. */
      const onStore = <A, E>(id: string, use: Effect.Effect<A, E, BillsApi>) =>
        StoreBillsApi.catchStoreDefects(
          Effect.provide(
            use,
            StoreBillsApi.layer(id, { partial: true }).pipe(Layer.provide(Layer.succeedContext(context)))
          )
        ).pipe(
          // The client's own errors describe an exchange; over a store only the store's can occur.
          Effect.catchAll((error) => (isStoreFailure(error) ? Effect.fail(error) : Effect.die(error)))
        )

      const events = Effect.fn("ViewData.events")(function* (
        id: string,
        window: { readonly from?: number | undefined; readonly to?: number | undefined }
      ) {
        const found = yield* onStore(
          id,
          LedgerEvents.fromStream(
            Stream.flatMap(Stream.fromIterable(kinds), (kind) =>
              Ledger.stream({ account: kind, from: window.from, to: window.to })
            )
          )
        )
        const summary = TaxFiles.summarize(found)
        const counted: Record<string, number> = {}
        for (const event of found.events) counted[event._tag] = (counted[event._tag] ?? 0) + 1
        const newest = found.events.slice(-eventsLimit).reverse()
        return {
          bills: found.conservation.reduce((sum, row) => sum + row.bills, 0),
          total: found.events.length,
          kinds: counted,
          flagged: summary.flagged.length,
          conserved: found.conserved,
          events: newest.map(eventRow),
          truncated: found.events.length > eventsLimit
        } satisfies Events
      })

      // An audit reads every bill of the account: it is computed once per state of the store (what
      // each kind holds, as its coverage says), and every page asking meanwhile shares it.
      const audits = new Map<
        string,
        { readonly state: string; readonly audit: Effect.Effect<Audit, ViewStoreFailure> }
      >()
      const audit = Effect.fn("ViewData.audit")(function* (id: string) {
        const coverage = yield* Effect.forEach(kinds, (kind) => store.coverage(id, kind))
        const state = JSON.stringify(coverage)
        const held = audits.get(id)
        if (held !== undefined && held.state === state) return yield* held.audit
        const fresh = yield* Effect.cached(auditOf(id, coverage))
        audits.set(id, { state, audit: fresh })
        return yield* fresh
      })

      const auditOf = (id: string, coverage: ReadonlyArray<StoreCoverage>) =>
        Effect.gen(function* () {
          const report = yield* onStore(id, Ledger.audit({ account: "all" }))
          const gaps: Array<AuditGap> = []
          for (const held of coverage) {
            for (const gap of held.agedOut) {
              gaps.push({
                kind: held.kind,
                coin: null,
                what: "aged-out",
                from: iso(gap.from),
                to: iso(gap.to),
                text: `${held.kind}: ${iso(gap.from)} to ${iso(gap.to)} aged out of the exchange's history before a sync read it`
              })
            }
            if (held.unfinished && held.bills > 0) {
              gaps.push({
                kind: held.kind,
                coin: null,
                what: "unfinished",
                from: held.coveredTo === null ? null : iso(held.coveredTo),
                to: null,
                text:
                  held.coveredTo === null
                    ? `${held.kind}: no sync has finished; the store holds part of the history`
                    : `${held.kind}: a sync after ${iso(held.coveredTo)} is under way or unfinished`
              })
            }
          }
          const coins: Array<Audit["coins"][number]> = []
          for (const account of report.accounts) {
            if (account.total !== undefined && account.total !== account.bills) {
              gaps.push({
                kind: account.account,
                coin: null,
                what: "count",
                from: null,
                to: null,
                text: `${account.account}: the exchange counts ${account.total} bills, the store holds ${account.bills}`
              })
            }
            for (const coinAudit of account.coins) {
              coins.push({
                kind: account.account,
                coin: coinAudit.coinName,
                bills: coinAudit.bills,
                whole: coinAudit.whole,
                rule: coinAudit.rule
              })
              for (const chainBreak of coinAudit.breaks) {
                const from = DateTime.formatIso(chainBreak.earlier.cTime)
                const to = DateTime.formatIso(chainBreak.later.cTime)
                gaps.push({
                  kind: account.account,
                  coin: coinAudit.coinName,
                  what: "break",
                  from,
                  to,
                  text: `${account.account} ${coinAudit.coinName}: bills missing between ${from} (bill ${chainBreak.earlier.billId}) and ${to} (bill ${chainBreak.later.billId}), ${BigDecimal.format(chainBreak.difference)} unaccounted`
                })
              }
              if (coinAudit.breakCount > coinAudit.breaks.length) {
                gaps.push({
                  kind: account.account,
                  coin: coinAudit.coinName,
                  what: "break",
                  from: null,
                  to: null,
                  text: `${account.account} ${coinAudit.coinName}: ${coinAudit.breakCount - coinAudit.breaks.length} more breaks`
                })
              }
            }
          }
          return { whole: gaps.length === 0, coins, gaps } satisfies Audit
        })

      return {
        store: store.target,
        account,
        accounts: Effect.map(accounts, (held) => held.map((row) => ({ id: row.id, label: row.label ?? null }))),
        labelOf: (id: string) => Effect.map(accounts, (held) => held.find((row) => row.id === id)?.label),
        overview,
        coin,
        balances,
        bills,
        raw: (id: string, kind: BillKind, billId: string) => reader.raw(id, kind, billId),
        events,
        audit
      } satisfies ViewDataShape
    })

  /** The reads of the store in context. */
  static readonly layer = (options: { readonly label?: string | undefined }) =>
    Layer.effect(ViewData, ViewData.make(options))
}
