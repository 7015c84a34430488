/**
 * Request parameters of both operations, validated before anything is sent and encoded to
 * the JSON body the interface expects.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InvalidParams } from "./Errors.js"
import { validate } from "./internal/validate.js"
import * as WindowOrder from "./internal/windowOrder.js"
import type { BizTypeOf } from "./Bill.js"
import {
  contractIncomeTypes,
  contractMaxSpanMillis,
  fundingBizTypes,
  isWellFormedBizType,
  maxPageSize,
  type OperationName,
  spotBizTypes
} from "./Operation.js"

/**
 * A time bound: a `DateTime`, a `Date` or epoch milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export type TimeInput = DateTime.DateTime | Date | number

/**
 * A `TimeInput` decoded to epoch milliseconds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TimeBound = Schema.transform(
  Schema.Union(
    Schema.declare((u): u is DateTime.DateTime => DateTime.isDateTime(u), { identifier: "DateTime" }),
    Schema.ValidDateFromSelf,
    Schema.NonNegativeInt
  ).annotations({
    message: () => ({
      message: "expected a DateTime, a valid Date or epoch milliseconds (a non-negative integer)",
      override: true
    })
  }),
  Schema.NonNegativeInt,
  {
    strict: true,
    decode: (input) =>
      typeof input === "number" ? input : input instanceof Date ? input.getTime() : DateTime.toEpochMillis(input),
    encode: (millis) => millis
  }
).annotations({ identifier: "TimeBound" })

const pageSizeRule = Schema.Int.pipe(
  Schema.between(1, maxPageSize, { message: () => `must be an integer from 1 to ${maxPageSize}` })
)

/**
 * A business type filter: typed as one of the operation's documented values (what an editor
 * completes) or any other string, since records carry types beyond the documented ones; checked
 * for its shape only (`bizTypePattern`), so a malformed value is refused and nothing is sent.
 */
const bizTypeOf = <const Values extends ReadonlyArray<string>>(values: Values) =>
  Schema.declare((u): u is BizTypeOf<Values[number]> => typeof u === "string" && isWellFormedBizType(u), {
    identifier: "BizType",
    message: () => ({
      message: `must be a business type, a letter then letters, digits or underscores (at most 64), such as ${values.slice(0, 3).join(", ")}`,
      override: true
    })
  })

const CoinId = Schema.Int.pipe(Schema.positive({ message: () => "must be a positive integer" }))

/**
 * Parameters of the funding operation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FundingBillsParams = Schema.Struct({
  coinId: Schema.optional(CoinId),
  bizType: Schema.optional(bizTypeOf(fundingBizTypes)),
  startTime: Schema.optional(TimeBound),
  endTime: Schema.optional(TimeBound),
  pageIndex: Schema.optional(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "must be an integer of at least 1" }))
  ),
  pageSize: Schema.optional(pageSizeRule)
}).pipe(
  Schema.filter((params) => WindowOrder.startNotAfterEnd("startTime", "endTime", params.startTime, params.endTime))
)

/**
 * What a caller passes to `fundingBills`.
 *
 * @since 0.1.0
 * @category models
 */
export type FundingBillsParams = typeof FundingBillsParams.Encoded

/**
 * Parameters of the spot operation. `after` and `before` are the start and end of the window.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SpotBillsParams = Schema.Struct({
  coinId: Schema.optional(CoinId),
  bizType: Schema.optional(bizTypeOf(spotBizTypes)),
  after: Schema.optional(TimeBound),
  before: Schema.optional(TimeBound),
  limit: Schema.optional(pageSizeRule)
}).pipe(Schema.filter((params) => WindowOrder.startNotAfterEnd("after", "before", params.after, params.before)))

/**
 * What a caller passes to `spotBills`.
 *
 * @since 0.1.0
 * @category models
 */
export type SpotBillsParams = typeof SpotBillsParams.Encoded

const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" }))

const days = (millis: number) => millis / (24 * 60 * 60 * 1000)

/**
 * The contract operation's window rules (ccxt's weex `fetchLedger`): both bounds or neither, the
 * start not after the end, and at most 100 days between them; and v3's cursor whole or not at all.
 */
const contractWindow = (params: {
  readonly startTime?: number | undefined
  readonly endTime?: number | undefined
  readonly nextKeyId?: string | undefined
  readonly nextKeyTime?: number | undefined
}) => {
  const { endTime, startTime } = params
  if ((startTime === undefined) !== (endTime === undefined)) {
    return {
      path: [startTime === undefined ? "startTime" : "endTime"],
      message: "the contract interface takes startTime and endTime together or neither"
    }
  }
  if ((params.nextKeyId === undefined) !== (params.nextKeyTime === undefined)) {
    return {
      path: [params.nextKeyId === undefined ? "nextKeyId" : "nextKeyTime"],
      message: "the v3 cursor takes nextKeyId and nextKeyTime together or neither"
    }
  }
  const order = WindowOrder.startNotAfterEnd("startTime", "endTime", startTime, endTime)
  if (order !== undefined) return order
  if (startTime !== undefined && endTime !== undefined && endTime - startTime > contractMaxSpanMillis) {
    return {
      path: ["endTime"],
      message: `the window may span at most ${days(contractMaxSpanMillis)} days (it spans ${days(endTime - startTime).toFixed(1)})`
    }
  }
  return undefined
}

/**
 * Parameters of the contract operation (the futures account), with v3's names: `asset` and
 * `incomeType` go out as `coin` and `businessType` on v2. The bounds come together or not at all
 * and span at most 100 days; `limit` is 1 to 100. `incomeType` is sent as given: the documented
 * list has grown between versions of the docs (see `contractIncomeTypes`). `nextKeyId` and
 * `nextKeyTime` are v3's cursor, from an answer's `nextKey`; a v2 client refuses them.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ContractBillsParams = Schema.Struct({
  asset: Schema.optional(NonEmpty),
  symbol: Schema.optional(NonEmpty),
  incomeType: Schema.optional(bizTypeOf(contractIncomeTypes)),
  startTime: Schema.optional(TimeBound),
  endTime: Schema.optional(TimeBound),
  limit: Schema.optional(pageSizeRule),
  /** v3's cursor (since 0.2.0): the `nextKey` of the answer before, both fields or neither; v2 has none. */
  nextKeyId: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^\d+$/, { message: () => "must be a bill id: digits only" }))
  ),
  nextKeyTime: Schema.optional(TimeBound)
}).pipe(Schema.filter(contractWindow))

/**
 * What a caller passes to `contractBills`.
 *
 * @since 0.2.0
 * @category models
 */
export type ContractBillsParams = typeof ContractBillsParams.Encoded

/**
 * Validated contract parameters with time bounds as epoch ms.
 *
 * @since 0.2.0
 * @category models
 */
export type ValidContractBillsParams = typeof ContractBillsParams.Type

/**
 * Validated parameters with time bounds as epoch ms, as they go into a request body.
 *
 * @since 0.1.0
 * @category models
 */
export type ValidFundingBillsParams = typeof FundingBillsParams.Type

/**
 * Validated spot parameters with time bounds as epoch ms, as they go into a request body.
 *
 * @since 0.1.0
 * @category models
 */
export type ValidSpotBillsParams = typeof SpotBillsParams.Type

/**
 * Decodes `params` with `schema` as the operations do: a violation fails with `InvalidParams`
 * naming `operation`, the field and the rule, before anything is sent. For the packages built on
 * the client (the books' ledger queries), so that their refusals read like the client's own.
 *
 * @since 0.2.0
 * @category validation
 */
export const decodeParams: <A, I>(
  operation: OperationName,
  schema: Schema.Schema<A, I>,
  params: I
) => Effect.Effect<A, InvalidParams> = validate

/**
 * The one rule every time window obeys, whatever its fields are called: its start is not after
 * its end. A `Schema.filter` result (`undefined` when it holds), reported on the start field.
 *
 * @since 0.2.0
 * @category validation
 */
export const startNotAfterEnd: (
  startKey: string,
  endKey: string,
  start: number | undefined,
  end: number | undefined
) => { readonly path: ReadonlyArray<string>; readonly message: string } | undefined = WindowOrder.startNotAfterEnd
