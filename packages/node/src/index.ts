/**
 * @account-bills/node: Node.js layers, the local exchange server and the command line.
 *
 * @since 0.1.0
 */

/** The client stack for Node.js. @since 0.1.0 */
export * from "./NodeBillsApi.js"
