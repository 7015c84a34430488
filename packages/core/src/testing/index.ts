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
export {
  defaultFaultMix,
  envelope,
  FakeFault,
  type FakeRequest,
  fakeRequestOf,
  FakeResponse,
  htmlPage,
  jsonResponse,
  type RandomFaults,
  reasonPhrase,
  type Rejection,
  rejectionResponse,
  rejections,
  rejectionsV3,
  type ScriptedFault
} from "./FakeProtocol.js"
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
export {
  type Account,
  type BookBill,
  compareDigitStrings,
  compareWireBills,
  type ContractWireBill,
  type FundingWireBill,
  type SpotWireBill,
  type WireBill,
  type WireBillOf
} from "./WireBill.js"
export { type SignedRequestOptions, signedRequest } from "./SignedRequest.js"
/**
 * A year of an account a trader would have: deposits, two-leg spot trades, transfers between the
 * three accounts with both legs, futures fees, funding and profit or loss, withdrawals.
 *
 * @since 0.3.0
 */
export * as TraderAccount from "./TraderAccount.js"
/**
 * `BillsApi` over canned bills, or over the fake exchange with the whole real stack: the test
 * variant of the service, prefixed as `NodeBillsApi` and `StoreBillsApi` are.
 *
 * @since 0.1.0
 * @category modules
 */
export * as TestBillsApi from "./TestBillsApi.js"
/**
 * @deprecated since 0.1.0: the same module as `TestBillsApi`, under its old name; it goes in 0.2.
 * @since 0.1.0
 * @category modules
 */
export * as BillsApiTest from "./TestBillsApi.js"
