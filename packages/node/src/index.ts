/**
 * @account-bills/node: Node.js layers, the local exchange server and the command line.
 *
 * Flat named exports, like @account-bills/core: `NodeBillsApi` and `FakeExchangeServer` carry
 * their constructors as members, and `BillFormat` is a namespace of functions.
 *
 * @since 0.1.0
 */

/**
 * NDJSON and CSV lines of bills.
 *
 * @since 0.1.0
 * @category modules
 */
export * as BillFormat from "./cli/BillFormat.js"
export { type ExportRequest, type ExportSummary, exportBills } from "./cli/ExportBills.js"
/**
 * The futures interface refusing a key: `exportBills` of the futures account alone fails with it.
 *
 * @since 0.2.0
 * @category errors
 */
export { FuturesRefused } from "./cli/FuturesRefused.js"
export { OutputClosed, OutputError } from "./cli/LineSink.js"
export {
  FakeExchangeServer,
  FakeExchangeServerError,
  type FakeExchangeServerService,
  type ListenOptions
} from "./FakeExchangeServer.js"
export { NodeBillsApi, type NodeBillsApiOptions } from "./NodeBillsApi.js"
