/**
 * The store of bills over `@effect/sql`: one schema for SQLite and PostgreSQL, migrated by
 * `@effect/sql`'s `Migrator`. Bills are keyed by (account, kind, billId); each account and kind
 * has a sync state (the window covered so far, the cursor of a walk in progress) and a lease
 * that lets one sync at a time write it.
 *
 * @since 0.1.0
 */
import { FundingBillsPage, type FundingBill, type SpotBill } from "@account-bills/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AccountQueries from "./internal/accountQueries.js"
import * as BillQueries from "./internal/billQueries.js"
import * as LeaseQueries from "./internal/leaseQueries.js"
import { openStore } from "./internal/openStore.js"
import { mapSqlFailure } from "./internal/sqlFailure.js"
import * as SyncStateQueries from "./internal/syncStateQueries.js"
import type { StoreAccount } from "./StoreAccount.js"
import {
  StoreAccountMismatch,
  type StoreDiskFull,
  type StoreNotFound,
  type StoreTooNew,
  type StoreUnavailable,
  SyncBusy
} from "./StoreErrors.js"

/**
 * The two accounts of the exchange whose bills a store keeps.
 *
 * @since 0.1.0
 * @category models
 */
export type BillKind = "funding" | "spot"

/**
 * The order the exchange lists bills in, as the sync saw it; reads from the store list in
 * the same order, so an export from the store is the export from the exchange.
 *
 * @since 0.1.0
 * @category models
 */
export type ListOrder = "newest-first" | "oldest-first"

/**
 * Where the sync of one account and kind stands.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncState {
  /** The window `[coveredFrom, coveredTo)` (epoch ms) that finished walks have read completely. */
  readonly covered: { readonly from: number; readonly to: number } | undefined
  /** The encoded cursor of a walk in progress, to resume from. */
  readonly cursor: string | undefined
  readonly order: ListOrder
}

/**
 * One page to commit: its bills and the walk's cursor after it, in one transaction.
 *
 * @since 0.1.0
 * @category models
 */
export interface PageCommit {
  readonly account: string
  readonly kind: BillKind
  /** The lease holder; the commit fails with `SyncBusy` if another sync has taken the lease. */
  readonly owner: string
  readonly leaseMillis: number
  readonly bills: ReadonlyArray<FundingBill | SpotBill>
  /** The encoded cursor after this page; ignored when `finished` is set. */
  readonly cursor: string
  /** Set on the walk's last page: the window it read, added to what is covered. */
  readonly finished: { readonly from: number; readonly to: number } | undefined
  readonly order: ListOrder | undefined
}

/**
 * Failures of the store's operations.
 *
 * @since 0.1.0
 * @category errors
 */
export type StoreFailure = StoreUnavailable | StoreDiskFull

/**
 * The filter and window of a read; bounds are inclusive epoch ms, as the store lists like an
 * exchange with inclusive bounds.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredBillsQuery {
  readonly coinId?: number | undefined
  readonly bizType?: string | undefined
  readonly start?: number | undefined
  readonly end?: number | undefined
}

/**
 * What the store offers.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsStoreShape {
  /** The store's path, or its URL without password, for messages. */
  readonly target: string
  /** Records the account, or fails if its label already belongs to another API key. */
  readonly register: (account: StoreAccount) => Effect.Effect<void, StoreFailure | StoreAccountMismatch>
  readonly state: (account: string, kind: BillKind) => Effect.Effect<SyncState, StoreFailure>
  /**
   * Takes the lease of (account, kind) for `leaseMillis` from now, or renews it for its holder;
   * returns when another holder's lease runs out instead, if it holds one.
   */
  readonly acquireLease: (
    account: string,
    kind: BillKind,
    owner: string,
    leaseMillis: number
  ) => Effect.Effect<{ readonly acquired: true } | { readonly acquired: false; readonly until: number }, StoreFailure>
  readonly releaseLease: (account: string, kind: BillKind, owner: string) => Effect.Effect<void, StoreFailure>
  /** Commits a page's bills (repeats dropped by key) with the walk's cursor; returns how many were new. */
  readonly commitPage: (page: PageCommit) => Effect.Effect<number, StoreFailure | SyncBusy>
  /** One page of funding bills as a funding response would list it (inclusive bounds). */
  readonly fundingPage: (
    account: string,
    query: StoredBillsQuery & { readonly pageIndex: number; readonly pageSize: number }
  ) => Effect.Effect<FundingBillsPage, StoreFailure>
  /** Up to `limit` spot bills as a spot response would list them (inclusive bounds). */
  readonly spotPage: (
    account: string,
    query: StoredBillsQuery & { readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<SpotBill>, StoreFailure>
  /** The accounts the store holds. */
  readonly accounts: Effect.Effect<ReadonlyArray<StoredAccount>, StoreFailure>
  /** How many bills of (account, kind) the store holds. */
  readonly count: (account: string, kind: BillKind) => Effect.Effect<number, StoreFailure>
  /** What the store holds completely of (account, kind), and whether a sync of it is unfinished. */
  readonly coverage: (account: string, kind: BillKind) => Effect.Effect<StoreCoverage, StoreFailure>
}

/**
 * What a store holds of one account and kind: the window it is known to hold completely, and
 * whether a sync of it was left unfinished, so that a read of a partly synced store can say so.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreCoverage {
  readonly account: string
  readonly kind: BillKind
  /** The start of the window the store holds completely, epoch ms; null until a walk has finished. */
  readonly coveredFrom: number | null
  /** The end (exclusive) of the window the store holds completely, epoch ms; null until a walk has finished. */
  readonly coveredTo: number | null
  /**
   * A walk was left mid-way (its cursor is stored: run the sync again to finish it), or none has
   * finished yet: the store may hold bills outside `[coveredFrom, coveredTo)`, and not all of them.
   */
  readonly unfinished: boolean
  /** The bills of (account, kind) the store holds. */
  readonly bills: number
}

/**
 * How to open a store: `create: false` opens an existing store only, and fails with
 * `StoreNotFound` where there is none (reads); the default creates one (syncs).
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenOptions {
  readonly create?: boolean | undefined
}

/**
 * An account as recorded in the store.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredAccount {
  readonly id: string
  readonly fingerprint: string
  readonly label: string | undefined
}

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/**
 * Opens the store on the `SqlClient` in context: runs the migrations, and refuses a store
 * whose schema is newer than this code.
 */
const make = (
  target: string,
  options: OpenOptions = {}
): Effect.Effect<BillsStoreShape, StoreFailure | StoreTooNew | StoreNotFound, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const mapped = mapSqlFailure(target)
    yield* openStore(target, { create: options.create ?? true })
    const accountRows = yield* AccountQueries.make
    const bills = yield* BillQueries.make
    const leases = yield* LeaseQueries.make
    const syncRows = yield* SyncStateQueries.make

    const register = (account: StoreAccount) =>
      mapped(
        Effect.gen(function* () {
          yield* accountRows.insert({ account: account.id, fingerprint: account.fingerprint, label: account.label ?? null })
          const row = yield* accountRows.byId(account.id)
          if (Option.isNone(row) || row.value.fingerprint !== account.fingerprint) {
            return yield* new StoreAccountMismatch({ label: account.id })
          }
        })
      )

    const state = (account: string, kind: BillKind) =>
      mapped(
        Effect.map(
          syncRows.read({ account, kind }),
          (found): SyncState => {
            const row = Option.getOrUndefined(found)
            const from = row?.covered_from ?? null
            const to = row?.covered_to ?? null
            return {
              covered: from === null || to === null ? undefined : { from, to },
              cursor: row?.cursor ?? undefined,
              order: row?.server_order ?? "newest-first"
            }
          }
        )
      )

    /** When the lease of (account, kind) runs out, for `SyncBusy`: now if nobody holds it. */
    const leaseEnd = (account: string, kind: BillKind, at: number) =>
      Effect.map(syncRows.read({ account, kind }), (row) =>
        Option.getOrUndefined(Option.flatMapNullable(row, (r) => r.lease_until)) ?? at
      )

    const acquireLease = (account: string, kind: BillKind, owner: string, leaseMillis: number) =>
      mapped(
        sql.withTransaction(
          Effect.gen(function* () {
            const at = yield* now
            yield* syncRows.ensure({ account, kind })
            const taken = yield* leases.take({ account, kind, owner, now: at, until: at + leaseMillis })
            if (taken.length > 0) return { acquired: true } as const
            return { acquired: false, until: yield* leaseEnd(account, kind, at) } as const
          })
        )
      )

    const releaseLease = (account: string, kind: BillKind, owner: string) =>
      mapped(leases.release({ account, kind, owner }))

    // The bills first, the fenced cursor last: if the fence refuses, the transaction rolls back
    // with the bills, and whoever holds the lease finds the store as it left it.
    const commitPage = (page: PageCommit): Effect.Effect<number, StoreFailure | SyncBusy> =>
      mapped(
        sql.withTransaction(
          Effect.gen(function* () {
            const at = yield* now
            const added = yield* bills.insert(page.bills.map((bill) => BillQueries.toRow(page.account, page.kind, bill)))
            const advanced = yield* leases.advance({
              account: page.account,
              kind: page.kind,
              owner: page.owner,
              now: at,
              until: at + page.leaseMillis,
              cursor: page.finished === undefined ? page.cursor : null,
              finished: page.finished ?? null,
              order: page.order ?? null
            })
            if (advanced.length === 0) {
              return yield* new SyncBusy({
                account: page.account,
                kind: page.kind,
                until: yield* leaseEnd(page.account, page.kind, at)
              })
            }
            return added.length
          })
        )
      )

    const orderOf = (account: string, kind: BillKind) => Effect.map(state(account, kind), (current) => current.order)

    const fundingPage = (
      account: string,
      query: StoredBillsQuery & { readonly pageIndex: number; readonly pageSize: number }
    ) =>
      Effect.gen(function* () {
        const listing = {
          account,
          kind: "funding" as const,
          order: yield* orderOf(account, "funding"),
          coinId: query.coinId,
          bizType: query.bizType,
          start: query.start,
          end: query.end,
          limit: query.pageSize,
          offset: (query.pageIndex - 1) * query.pageSize
        }
        const total = yield* mapped(bills.countMatching(listing))
        const items = yield* mapped(bills.funding(listing))
        return new FundingBillsPage({
          total,
          page: query.pageIndex,
          pageSize: query.pageSize,
          hasNextPage: listing.offset + items.length < total,
          items
        })
      })

    const spotPage = (account: string, query: StoredBillsQuery & { readonly limit: number }) =>
      Effect.gen(function* () {
        return yield* mapped(
          bills.spot({
            account,
            kind: "spot",
            order: yield* orderOf(account, "spot"),
            coinId: query.coinId,
            bizType: query.bizType,
            start: query.start,
            end: query.end,
            limit: query.limit,
            offset: 0
          })
        )
      })

    const count = (account: string, kind: BillKind) => mapped(bills.count({ account, kind }))

    const coverage = (account: string, kind: BillKind) =>
      Effect.map(
        Effect.all([state(account, kind), count(account, kind)]),
        ([current, held]): StoreCoverage => ({
          account,
          kind,
          coveredFrom: current.covered?.from ?? null,
          coveredTo: current.covered?.to ?? null,
          unfinished: current.cursor !== undefined || current.covered === undefined,
          bills: held
        })
      )

    const accounts = mapped(
      Effect.map(accountRows.all, (rows) =>
        rows.map((row): StoredAccount => ({ id: row.account, fingerprint: row.fingerprint, label: row.label ?? undefined }))
      )
    )

    return BillsStore.of({
      accounts,
      target,
      register,
      state,
      acquireLease,
      releaseLease,
      commitPage,
      fundingPage,
      spotPage,
      count,
      coverage
    })
  })

/**
 * The store of bills.
 *
 * @since 0.1.0
 * @category tags
 */
export class BillsStore extends Context.Tag("@account-bills/store/BillsStore")<BillsStore, BillsStoreShape>() {
  /**
   * Opens the store on the `SqlClient` in context; `target` names it in messages. With
   * `create: false`, only an existing store opens.
   */
  static readonly make = make
  /** The store over the `SqlClient` in context. */
  static readonly layer = (
    target: string,
    options?: OpenOptions
  ): Layer.Layer<BillsStore, StoreFailure | StoreTooNew | StoreNotFound, SqlClient.SqlClient> =>
    Layer.effect(BillsStore, make(target, options))
}
