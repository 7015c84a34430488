/**
 * The store of bills over `@effect/sql`: one schema for SQLite and PostgreSQL, migrated by
 * `@effect/sql`'s `Migrator`. Bills are keyed by (account, kind, billId); each account and kind
 * has a sync state (the window covered so far, the cursor of a walk in progress) and a lease
 * that lets one sync at a time write it.
 *
 * @since 0.1.0
 */
import type { BillKind as CoreBillKind, ListOrder as CoreListOrder } from "@account-bills/core"
import type { ContractBill, FundingBill, FundingBillsPage, SpotBill } from "@account-bills/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { make } from "./internal/billsStore.js"
import type { StoreAccount } from "./StoreAccount.js"
import type {
  StoreAccountMismatch,
  StoreDiskFull,
  StoreNotFound,
  StoreTooNew,
  StoreUnavailable,
  SyncBusy
} from "./StoreErrors.js"

/**
 * The accounts of the exchange whose bills a store keeps (funding, spot and, since 0.2.0, contract): core's `BillKind`, one name for it.
 *
 * @since 0.1.0
 * @category models
 */
export type BillKind = CoreBillKind

/**
 * The order the exchange lists bills in, as the sync saw it (core's `ListOrder`); reads from the
 * store list in the same order, so an export from the store is the export from the exchange.
 *
 * @since 0.1.0
 * @category models
 */
export type ListOrder = CoreListOrder

/**
 * Where the sync of one account and kind stands.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncState {
  /**
   * The window `[coveredFrom, coveredTo)` (epoch ms) that finished walks have read, completely
   * but for the `agedOut` windows inside it.
   */
  readonly covered: { readonly from: number; readonly to: number } | undefined
  /**
   * Windows inside `covered` that no walk read: the exchange's history horizon had passed them
   * when the sync after them ran (it serves only recent history), so their bills are lost to
   * the store. In time order.
   */
  readonly agedOut: ReadonlyArray<{ readonly from: number; readonly to: number }>
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
  /** Bills of `kind`: contract bills for `contract`, funding or spot bills for the others. */
  readonly bills: ReadonlyArray<FundingBill | SpotBill | ContractBill>
  /** The encoded cursor after this page; ignored when `finished` is set. */
  readonly cursor: string
  /** Set on the walk's last page: the window it read, added to what is covered. */
  readonly finished: { readonly from: number; readonly to: number } | undefined
  /**
   * With `finished`: every aged-out window of the kind once this walk is recorded (the earlier
   * ones and the gap between the covered window and this walk's, if any); undefined: unchanged.
   */
  readonly agedOut?: ReadonlyArray<{ readonly from: number; readonly to: number }> | undefined
  readonly order: ListOrder | undefined
  /**
   * Let the lease go with this page, in the same statement: the walk's last page, after which
   * its holder writes nothing more. Default false. (Since 0.2.0.)
   */
  readonly release?: boolean | undefined
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
 * The filter and window of a read of contract bills; bounds are inclusive epoch ms.
 *
 * @since 0.2.0
 * @category models
 */
export interface StoredContractQuery {
  readonly coinName?: string | undefined
  readonly symbol?: string | undefined
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
   * Takes the lease of (account, kind) for `leaseMillis` from now, or renews it for its holder,
   * with the sync state as the taking statement found it (since 0.2.0); returns when another
   * holder's lease runs out instead, if it holds one.
   */
  readonly acquireLease: (
    account: string,
    kind: BillKind,
    owner: string,
    leaseMillis: number
  ) => Effect.Effect<
    { readonly acquired: true; readonly state: SyncState } | { readonly acquired: false; readonly until: number },
    StoreFailure
  >
  /**
   * Renews the lease of (account, kind) for `leaseMillis` from now if `owner` still holds it;
   * false when it does not (let go, or taken by another). Since 0.2.0.
   */
  readonly renewLease: (
    account: string,
    kind: BillKind,
    owner: string,
    leaseMillis: number
  ) => Effect.Effect<boolean, StoreFailure>
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
  /** Up to `limit` contract bills as a contract response would list them (inclusive bounds). Since 0.2.0. */
  readonly contractPage: (
    account: string,
    query: StoredContractQuery & { readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<ContractBill>, StoreFailure>
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
  /**
   * Windows inside `[coveredFrom, coveredTo)` that no sync read before the exchange stopped
   * serving them: the store does not hold their bills, and never will (see `SyncState.agedOut`).
   */
  readonly agedOut: ReadonlyArray<{ readonly from: number; readonly to: number }>
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
