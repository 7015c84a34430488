/**
 * The testing kit: a fake exchange to run the real client against, with no network.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as BillBook from "./BillBook.js"
/** @since 0.1.0 */
export * as BillGenerator from "./BillGenerator.js"
/** @since 0.1.0 */
export {
  defaultCredentials,
  type FakeBehaviour,
  FakeExchange,
  type FakeExchangeOptions,
  type FakeExchangeService,
  type FakeCredentials,
  type FakeOutcome,
  type FakeStats,
  type GenerateBillsOptions,
  type LoggedRequest,
  type OperationStats
} from "./FakeExchange.js"
/** @since 0.1.0 */
export * as FakeHttpClient from "./FakeHttpClient.js"
/** @since 0.1.0 */
export * from "./FakeProtocol.js"
/** @since 0.1.0 */
export * as LazyBillBook from "./LazyBillBook.js"
/** @since 0.1.0 */
export * as Prng from "./Prng.js"
/** @since 0.1.0 */
export * as Latency from "./Latency.js"
/** @since 0.1.0 */
export * as RequestParams from "./RequestParams.js"
/** @since 0.1.0 */
export * as SlidingWindow from "./SlidingWindow.js"
/** @since 0.1.0 */
export * from "./WireBill.js"
/** @since 0.1.0 */
export * from "./SignedRequest.js"
/** @since 0.1.0 */
export * as BillsApiTest from "./BillsApiTest.js"
