/**
 * The books' names at their old home, for one release: `Ledger`, `LedgerEvents`, `TaxFiles` and
 * `Journal` moved to `@account-bills/books` in 0.2.0 (the client no longer carries them). Each is
 * the very namespace of the books, not a copy, and each is marked deprecated, so an editor strikes
 * it through and names the new path.
 *
 * Why an entry of its own and not the index: the index cannot re-export the books without
 * importing them, and the books import the client; a client user would load (and install) the
 * books for nothing, and the packages would import each other. This file is the one place core
 * imports `@account-bills/books` (an optional peer), nothing in core imports it, and it goes in
 * the next release; `.ci/layers.mjs` allows it by name and nothing else.
 *
 * @since 0.2.0
 */
import * as Books from "@account-bills/books"

/**
 * The ledger of the three accounts and its audit.
 *
 * @deprecated Moved: `import { Ledger } from "@account-bills/books"`.
 * @since 0.1.0
 * @category modules
 */
export import Ledger = Books.Ledger

/**
 * The events of the ledger: trades paired, internal transfers matched.
 *
 * @deprecated Moved: `import { LedgerEvents } from "@account-bills/books"`.
 * @since 0.2.0
 * @category modules
 */
export import LedgerEvents = Books.LedgerEvents

/**
 * Files that tax tools import (Koinly, CoinTracking, BittyTax).
 *
 * @deprecated Moved: `import { TaxFiles } from "@account-bills/books"`.
 * @since 0.2.0
 * @category modules
 */
export import TaxFiles = Books.TaxFiles

/**
 * Journals for hledger, Ledger and Beancount.
 *
 * @deprecated Moved: `import { Journal } from "@account-bills/books"`.
 * @since 0.2.0
 * @category modules
 */
export import Journal = Books.Journal
