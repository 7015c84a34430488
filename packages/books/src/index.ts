/**
 * @account-bills/books: what turns the bills of @account-bills/core into records a person files.
 * The ledger of the three accounts and its audit, the events (trades paired, transfers matched),
 * the files tax tools import and the journals of hledger, Ledger and Beancount.
 *
 * The names are those @account-bills/core exported up to 0.1.x (`Ledger`, `LedgerEvents`,
 * `TaxFiles`, `Journal`), each a namespace: a user's code changes one import path. The plumbing
 * behind them lives in `internal/` and is not exported.
 *
 * @since 0.2.0
 */

/**
 * The ledger of the three accounts and its audit.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Ledger from "./Ledger.js"
/**
 * Journals for hledger, Ledger and Beancount over the events, every reported balance asserted.
 *
 * @since 0.2.0
 * @category modules
 */
export * as Journal from "./Journal.js"
/**
 * The events of the ledger: trades paired, internal transfers matched, every bill in exactly one
 * event, every coin's balance change conserved.
 *
 * @since 0.2.0
 * @category modules
 */
export * as LedgerEvents from "./LedgerEvents.js"
/**
 * Files that tax tools import (Koinly, CoinTracking, BittyTax), written from the ledger's events.
 *
 * @since 0.2.0
 * @category modules
 */
export * as TaxFiles from "./TaxFiles.js"
