/**
 * The records and pages the two operations return. Records decode to exact values (amounts
 * as `BigDecimal`, `cTime` as `DateTime.Utc`, ids as strings) and keep the raw object the
 * server sent, so an export can write back exactly what came in.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Amount } from "./Amount.js"
import { idPattern, millisPattern } from "./internal/grammar.js"
import type { fundingBizTypes, spotBizTypes } from "./Operation.js"

/**
 * Epoch milliseconds as a digit string (or an integer number) decoded to `DateTime.Utc`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CTime = Schema.transformOrFail(
  Schema.Union(Schema.String.pipe(Schema.pattern(millisPattern)), Schema.NonNegativeInt),
  Schema.DateTimeUtcFromSelf,
  {
    strict: true,
    decode: (input, _, ast) => {
      const millis = typeof input === "number" ? input : Number(input)
      return DateTime.make(millis).pipe((option) =>
        option._tag === "Some"
          ? ParseResult.succeed(option.value)
          : ParseResult.fail(new ParseResult.Type(ast, input, "not a valid epoch-milliseconds time"))
      )
    },
    encode: (dateTime) => ParseResult.succeed(String(DateTime.toEpochMillis(dateTime)))
  }
).annotations({ identifier: "CTime" })

/**
 * A bill id: digits in a string. Real ids exceed 2^53, so they never become numbers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BillId = Schema.String.pipe(Schema.pattern(idPattern), Schema.brand("BillId"))

/**
 * A bill id, branded: a value of the `BillId` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type BillId = typeof BillId.Type

/**
 * A bizType as the server sent it: one of the operation's documented values or any other
 * string, since responses carry values beyond the documented ones.
 *
 * @since 0.1.0
 * @category models
 */
export type BizTypeOf<Known extends string> = Known | (string & {})

/**
 * The raw record as decoded from JSON, kept for exact re-export.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RawRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * A record as the exchange sent it, decoded from JSON: a value of the `RawRecord` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type RawRecord = typeof RawRecord.Type

const commonFields = {
  billId: BillId,
  coinId: Schema.Int,
  coinName: Schema.String,
  bizType: Schema.String,
  deltaAmount: Amount,
  afterAmount: Amount,
  fees: Amount,
  cTime: CTime,
  raw: RawRecord
}

/**
 * One balance change of the funding account.
 *
 * @since 0.1.0
 * @category schemas
 */
export class FundingBill extends Schema.Class<FundingBill>("@account-bills/core/FundingBill")(commonFields) {
  /**
   * The bizType, typed with the documented values for completion.
   *
   * @since 0.1.0
   */
  declare readonly bizType: BizTypeOf<(typeof fundingBizTypes)[number]>
}

/**
 * One balance change of the spot account.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SpotBill extends Schema.Class<SpotBill>("@account-bills/core/SpotBill")({
  ...commonFields,
  fillSize: Schema.optionalWith(Amount, { nullable: true, as: "Option" }),
  fillValue: Schema.optionalWith(Amount, { nullable: true, as: "Option" })
}) {
  /**
   * The bizType, typed with the documented values for completion.
   *
   * @since 0.1.0
   */
  declare readonly bizType: BizTypeOf<(typeof spotBizTypes)[number]>
}

/**
 * Decodes a JSON object into a record class, keeping the object itself as `raw`; extra
 * fields are ignored by the record schema and survive in `raw`.
 */
const fromWire = <A, I extends { readonly raw: RawRecord }>(record: Schema.Schema<A, I>) =>
  Schema.transform(RawRecord, record, {
    strict: false,
    decode: (raw) => ({ ...raw, raw }),
    encode: (encoded) => encoded.raw
  })

/**
 * A funding record as it comes over the wire.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FundingBillFromWire: Schema.Schema<FundingBill, RawRecord> = fromWire(FundingBill)

/**
 * A spot record as it comes over the wire.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SpotBillFromWire: Schema.Schema<SpotBill, RawRecord> = fromWire(SpotBill)

/**
 * One page of funding bills.
 *
 * @since 0.1.0
 * @category schemas
 */
export class FundingBillsPage extends Schema.Class<FundingBillsPage>("@account-bills/core/FundingBillsPage")({
  total: Schema.NonNegativeInt,
  page: Schema.Int,
  pageSize: Schema.Int,
  hasNextPage: Schema.Boolean,
  items: Schema.Array(FundingBillFromWire)
}) {}

/**
 * The data of a spot response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SpotBills = Schema.Array(SpotBillFromWire)
