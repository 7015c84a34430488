/**
 * @account-bills/core: an Effect client for the Account Bill Ledger Query Interface.
 *
 * The public surface is flat named exports: the services (`BillsApi`, `BillsConfig`, `Signer`,
 * `BillsRateLimiter`) are classes whose statics (`layer`, `make`, ...) already act as their
 * namespace, so `BillsApi.BillsApi` would only stutter. Modules that are collections of
 * functions (`Amount`, `Signature`) are namespaces. Every name below is a promise
 * kept across 0.1.x; the plumbing behind them lives in `internal/` and is not exported.
 *
 * @since 0.1.0
 */

/**
 * Exact decimal amounts.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Amount from "./Amount.js"
export {
  BillId,
  type BizTypeOf,
  ContractBill,
  ContractBillFromWire,
  ContractBillsData,
  ContractBillsPage,
  CTime,
  FundingBill,
  FundingBillFromWire,
  FundingBillsPage,
  RawRecord,
  SpotBill,
  SpotBillFromWire,
  SpotBills
} from "./Bill.js"
export { BillKind } from "./BillKind.js"
export { BillsApi, type BillsApiShape } from "./BillsApi.js"
export { type ApiVersion, BillsConfig, type BillsConfigInput, type BillsConfigShape } from "./BillsConfig.js"
export {
  BillsRateLimiter,
  type BillsRateLimiterShape,
  type PermitOutcome,
  type RateLimitOptions
} from "./BillsRateLimiter.js"
/**
 * A callback after a time on the fiber's clock, with no fiber on the real clock.
 *
 * @since 0.2.0
 * @category modules
 */
export * as ClockTimer from "./ClockTimer.js"
/**
 * Counters per operation: requests, 429s, retries, bills.
 *
 * @since 0.1.0
 * @category modules
 */
export * as BillsMetrics from "./BillsMetrics.js"
export {
  BillsApiError,
  BillsApiErrorReason,
  BillsDecodeError,
  type BillsError,
  BillsIncomplete,
  BillsTransportError,
  InvalidParams
} from "./Errors.js"
export {
  bizTypePattern,
  type ContractIncomeType,
  contractIncomeTypes,
  contractHistoryStartMillis,
  contractMaxSpanMillis,
  type FundingBizType,
  fundingBizTypes,
  isFundingBizType,
  isSpotBizType,
  isWellFormedBizType,
  maxPageSize,
  type OperationName,
  operationOf,
  type SpotBizType,
  spotBizTypes
} from "./Operation.js"
export { ListOrder } from "./ListOrder.js"
export {
  ContractBillsParams,
  decodeParams,
  FundingBillsParams,
  SpotBillsParams,
  startNotAfterEnd,
  TimeBound,
  type TimeInput,
  type ValidContractBillsParams,
  type ValidFundingBillsParams,
  type ValidSpotBillsParams
} from "./Params.js"
/**
 * The signature scheme.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Signature from "./Signature.js"
export {
  type Credentials,
  credentialsConfig,
  type RequestToSign,
  Signer,
  type SignerShape,
  withSecretHeadersRedacted
} from "./Signer.js"
export {
  type ContractBillsQuery,
  ContractCursor,
  type ContractPage,
  defaultConcurrency,
  FundingCursor,
  type FundingBillsQuery,
  type FundingPage,
  SpotCursor,
  type SpotBillsQuery,
  type SpotPage,
  type StreamQuery
} from "./Streams.js"
