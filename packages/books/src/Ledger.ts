/**
 * The ledger of both accounts: funding and spot bills as one time-ordered stream, and an audit
 * that proves an export complete from the data itself. Every bill carries the balance after it,
 * so per account and coin each bill must start from the balance the one before ended with; a
 * missing bill shows as a break between its neighbours.
 *
 * This module is the `Ledger` namespace: the merged stream here, the entries, the report and
 * the audit from their own modules.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { BillsApi, type BillsError } from "@account-bills/core"
import { merged, resolveWindow } from "./internal/ledgerWindow.js"
import type { LedgerEntry, LedgerQuery } from "./LedgerEntry.js"

/**
 * The audit's report: per account and coin, the bills, the balances, the fee rule and the breaks.
 *
 * @since 0.1.0
 * @category exports
 */
export * from "./AuditReport.js"
/**
 * The audit: `audit` over the exchange, `auditEntries` over any stream of entries.
 *
 * @since 0.1.0
 * @category exports
 */
export * from "./LedgerAudit.js"
/**
 * The entries of the ledger: a bill tagged with its account and kind, and the query.
 *
 * @since 0.1.0
 * @category exports
 */
export * from "./LedgerEntry.js"

/**
 * Funding and spot bills of the query merged into one stream in time order, fetched as the
 * stream is pulled (taking a few entries costs a request per account, not a crawl).
 *
 * The order is the exchange's: oldest first or newest first, whichever way the exchange lists,
 * learned from the data; at equal times funding comes first. The stream fails with
 * `BillsIncomplete` rather than emit out of order if an account is not listed in time order.
 *
 * @since 0.1.0
 * @category utils
 */
export const stream = (query: LedgerQuery = {}): Stream.Stream<LedgerEntry, BillsError, BillsApi> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const api = yield* BillsApi
      const window = yield* resolveWindow(query)
      return merged(api, window, () => Effect.void)
    })
  )
