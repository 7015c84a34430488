/**
 * The testing kit: a fake exchange to run the real client against, with no network.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 @category modules */
export * as BillBook from "./BillBook.js"
/** @since 0.1.0 @category modules */
export * as BillGenerator from "./BillGenerator.js"
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
/** @since 0.1.0 @category modules */
export * as FakeHttpClient from "./FakeHttpClient.js"
export * from "./FakeProtocol.js"
/** @since 0.1.0 @category modules */
export * as LazyBillBook from "./LazyBillBook.js"
/** @since 0.1.0 @category modules */
export * as Prng from "./Prng.js"
/** @since 0.1.0 @category modules */
export * as Latency from "./Latency.js"
/** @since 0.1.0 @category modules */
export * as RequestParams from "./RequestParams.js"
/** @since 0.1.0 @category modules */
export * as SlidingWindow from "./SlidingWindow.js"
export * from "./WireBill.js"
export * from "./SignedRequest.js"
/** @since 0.1.0 @category modules */
export * as BillsApiTest from "./BillsApiTest.js"
