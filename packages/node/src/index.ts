/**
 * @account-bills/node: Node.js layers, the local exchange server and the command line.
 *
 * @since 0.1.0
 */

/** The client stack for Node.js. @since 0.1.0 */
export * from "./NodeBillsApi.js"
/** The export job behind `bills export`, for programs. @since 0.1.0 */
export { type ExportRequest, type ExportSummary, exportBills } from "./cli/ExportBills.js"
/** NDJSON and CSV lines of bills. @since 0.1.0 */
export * as BillFormat from "./cli/BillFormat.js"
/** The local exchange on loopback. @since 0.1.0 */
export * from "./FakeExchangeServer.js"
/** Failure to write an export, or its reader gone. @since 0.1.0 */
export { OutputClosed, OutputError } from "./cli/LineSink.js"
