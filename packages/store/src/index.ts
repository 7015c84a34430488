/**
 * @account-bills/store: keep every bill. An incremental, crash-safe sync of an exchange
 * account's bills into SQLite or PostgreSQL, and the client read back from the store offline.
 *
 * The names below are listed one by one, as in `@account-bills/core`: the service is a class
 * whose statics (`BillsStore.make`, `BillsStore.layer`) are its namespace; modules that are
 * collections of functions (`Sync`, `StoreLayer`, ...) are namespaces. The plumbing lives in
 * `internal/` and is not exported.
 *
 * @since 0.1.0
 */

export {
  type BillKind,
  BillsStore,
  type BillsStoreShape,
  type ListOrder,
  type OpenOptions,
  type PageCommit,
  type StoreCoverage,
  type StoredAccount,
  type StoredBillsQuery,
  type StoredContractQuery,
  type StoreFailure,
  type SyncState
} from "./BillsStore.js"
export {
  StoreAccountMismatch,
  StoreAccountUnknown,
  StoreDiskFull,
  type StoreError,
  StoreNotFound,
  StoreNotSynced,
  StorePasswordInUrl,
  StoreTooNew,
  StoreUnavailable,
  SyncBusy,
  type SyncStoreError
} from "./StoreErrors.js"
/**
 * Which account a store's rows belong to.
 *
 * @since 0.1.0
 * @category modules
 */
export * as StoreAccount from "./StoreAccount.js"
/**
 * The client read from the store, offline.
 *
 * @since 0.1.0
 * @category modules
 */
export * as StoreBillsApi from "./StoreBillsApi.js"
export {
  type BillCursor,
  type CoinGroup,
  type Series,
  type SeriesPoint,
  type SeriesQuery,
  type StoredBillRow,
  type StoredBillsFilter,
  StoreReader,
  type StoreReaderShape
} from "./StoreReader.js"
/**
 * The store on SQLite or PostgreSQL.
 *
 * @since 0.1.0
 * @category modules
 */
export * as StoreLayer from "./StoreLayer.js"
/**
 * Where a store lives.
 *
 * @since 0.1.0
 * @category modules
 */
export * as StoreTarget from "./StoreTarget.js"
/**
 * The store's schema version, read again while it is in use.
 *
 * @since 0.3.0
 * @category modules
 */
export * as StoreVersion from "./StoreVersion.js"
/**
 * The sync.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Sync from "./Sync.js"
