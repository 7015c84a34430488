/**
 * @account-bills/core: an Effect client for the Account Bill Ledger Query Interface.
 *
 * @since 0.1.0
 */

/** Exact decimal amounts. @since 0.1.0 */
export * as Amount from "./Amount.js"
/** Records and pages. @since 0.1.0 */
export * from "./Bill.js"
/** The client. @since 0.1.0 */
export * from "./BillsApi.js"
/** Settings. @since 0.1.0 */
export * from "./BillsConfig.js"
/** Rate limiting. @since 0.1.0 */
export * from "./BillsRateLimiter.js"
/** Counters per operation: requests, 429s, retries, bills. @since 0.2.0 */
export * as BillsMetrics from "./BillsMetrics.js"
/** Typed errors. @since 0.1.0 */
export * from "./Errors.js"
/** Shared facts about the two operations. @since 0.1.0 */
export * from "./Operation.js"
/** Request parameters. @since 0.1.0 */
export * from "./Params.js"
/** The signature scheme. @since 0.1.0 */
export * as Signature from "./Signature.js"
/** The request signer. @since 0.1.0 */
export * from "./Signer.js"
/** Stream queries and pages. @since 0.1.0 */
export * from "./Streams.js"
/** The ledger of both accounts and its audit. @since 0.1.0 */
export * as Ledger from "./Ledger.js"
