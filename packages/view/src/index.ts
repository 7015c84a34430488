/**
 * @account-bills/view: `bills view`, a local read-only page over a store of bills: the overview
 * per kind and coin, balances over time, the bills with their raw records, the events, the audit
 * and downloads in every format of `bills export`.
 *
 * @since 0.1.0
 */

/**
 * The reads the page shows.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ViewData from "./ViewData.js"
/**
 * The downloads' port to `bills export`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ViewExporter from "./ViewExporter.js"
/**
 * Serving the view.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ViewMain from "./ViewMain.js"
/**
 * The requests the view takes.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ViewRequest from "./ViewRequest.js"
/**
 * The HTTP app.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ViewServer from "./ViewServer.js"
