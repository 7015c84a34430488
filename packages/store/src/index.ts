/**
 * @account-bills/store: keep every bill. An incremental, crash-safe sync of an exchange
 * account's bills into SQLite or PostgreSQL, and the client read back from the store offline.
 *
 * @since 0.1.0
 */

/** The store service. @since 0.1.0 */
export * from "./BillsStore.js"
/** Which account a store's rows belong to. @since 0.1.0 */
export * as StoreAccount from "./StoreAccount.js"
/** The store's typed errors. @since 0.1.0 */
export * from "./StoreErrors.js"
/** Where a store lives. @since 0.1.0 */
export * as StoreTarget from "./StoreTarget.js"
/** The store on SQLite or PostgreSQL. @since 0.1.0 */
export * as StoreLayer from "./StoreLayer.js"
/** The sync. @since 0.1.0 */
export * as Sync from "./Sync.js"
/** The client read from the store, offline. @since 0.1.0 */
export * as StoreBillsApi from "./StoreBillsApi.js"
