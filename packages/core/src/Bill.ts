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
import { withoutExponent } from "./internal/decimalText.js"
import type { contractIncomeTypes, fundingBizTypes, spotBizTypes } from "./Operation.js"

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
 * A number as the digits it was written with, when that is exact: the response lexer keeps every
 * literal a JS number would not read back as written in a string, so a number here is exact. A
 * literal in exponent notation (a server that writes its decimals as Java's `BigDecimal.toString`
 * or Python's `json.dumps` of a float does: `1E-8`, `1e-05`) is written out in full, the same
 * value: the futures interface may send its amounts as JSON numbers, and such a literal, once the
 * lexer kept it as text, cannot be told from a string.
 */
const exactText = (value: unknown): unknown => {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value
  return typeof text === "string" ? (withoutExponent(text) ?? text) : text
}

/**
 * An id as the wire may send it: a digit string, or a JSON number that is a safe integer (the
 * response lexer turns a literal above 2^53 into its digit string before parsing, so a number
 * here is exact). Anything else is passed on for the schema to refuse with its path.
 */
const idText = (value: unknown): unknown =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? String(value) : value

/**
 * An integer field as the wire may send it: a JSON number, or a digit string (one public fixture
 * sends `coinId: "82"` where the docs type an integer). Anything else is passed on for the schema
 * to refuse with its path.
 */
const intOf = (value: unknown): unknown =>
  typeof value === "string" && /^-?\d{1,15}$/.test(value) ? Number(value) : value

/**
 * Decodes a JSON object into a record class, keeping the object itself as `raw`; extra
 * fields are ignored by the record schema and survive in `raw`. Every numeric field reads a JSON
 * number or its digits as a string alike, exactly: ids and coin ids both ways, amounts as the
 * digits they were written with.
 */
const fromWire = <A, I extends { readonly raw: RawRecord }>(record: Schema.Schema<A, I>) =>
  Schema.transform(RawRecord, record, {
    strict: false,
    decode: (raw) => ({
      ...raw,
      billId: idText(raw.billId),
      coinId: intOf(raw.coinId),
      deltaAmount: exactText(raw.deltaAmount),
      afterAmount: exactText(raw.afterAmount),
      fees: exactText(raw.fees),
      ...(raw.fillSize === undefined ? {} : { fillSize: exactText(raw.fillSize) }),
      ...(raw.fillValue === undefined ? {} : { fillValue: exactText(raw.fillValue) }),
      raw
    }),
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
 * One balance change of the futures account, with the field names of the other two kinds so that
 * the ledger, events and journals read the three alike. The wire names differ by version: v3
 * (`/capi/v3/account/income`) sends `asset`, `income`, `incomeType`, `balance`, `fillFee`, `time`;
 * v2 (`/capi/v2/account/bills`) `coin`, `amount`, `businessType`, `balance`, `fillFee`, `ctime`.
 * There is no coin id: the futures interface names assets. `raw` is the record as sent (an id
 * beyond 2^53 sent as a JSON number is kept as its digit string, see `ContractBillFromWire`).
 *
 * @since 0.2.0
 * @category schemas
 */
export class ContractBill extends Schema.Class<ContractBill>("@account-bills/core/ContractBill")({
  billId: BillId,
  /** The asset (v3 `asset`, v2 `coin`). */
  coinName: Schema.String,
  /** The contract the bill belongs to (`cmt_btcusdt`, `BTCUSDT`), when it belongs to one. */
  symbol: Schema.optionalWith(Schema.String, { nullable: true, as: "Option" }),
  /** v3 `incomeType`, v2 `businessType`. */
  bizType: Schema.String,
  /** v3 `income`, v2 `amount`: the signed change of the asset's balance. */
  deltaAmount: Amount,
  /** `balance`: the asset's balance after the bill. */
  afterAmount: Amount,
  /** `fillFee`. */
  fees: Amount,
  /** v3 `time`, v2 `ctime`. */
  cTime: CTime,
  /** Why a transfer happened, on transfers into and out of the account. */
  transferReason: Schema.optionalWith(Schema.String, { nullable: true, as: "Option" }),
  raw: RawRecord
}) {
  /**
   * The incomeType, typed with the documented values for completion.
   *
   * @since 0.2.0
   */
  declare readonly bizType: BizTypeOf<(typeof contractIncomeTypes)[number]>
}

/** The first of `names` the record has (not undefined). */
const pick = (raw: RawRecord, ...names: ReadonlyArray<string>): unknown => {
  for (const name of names) if (raw[name] !== undefined) return raw[name]
  return undefined
}

/**
 * A contract record as it comes over the wire, v2 or v3, to a `ContractBill` with the common
 * names. `billId` and `time` may be JSON numbers (the docs type them as Long); an id must then be
 * a safe integer, since a number above 2^53 has already lost digits (the client's response lexer
 * turns such literals into strings before parsing). Amounts may be numbers for the same reason.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ContractBillFromWire: Schema.Schema<ContractBill, RawRecord> = Schema.transform(RawRecord, ContractBill, {
  strict: false,
  decode: (raw) => {
    const billId = raw.billId
    return {
      billId: idText(billId),
      coinName: pick(raw, "asset", "coin"),
      symbol: raw.symbol,
      bizType: pick(raw, "incomeType", "businessType"),
      deltaAmount: exactText(pick(raw, "income", "amount")),
      afterAmount: exactText(raw.balance),
      fees: exactText(raw.fillFee),
      cTime: pick(raw, "time", "ctime"),
      transferReason: raw.transferReason,
      raw
    }
  },
  encode: (encoded) => encoded.raw
})

/**
 * One page of contract bills: the records of one answer, and on v3 whether the server holds more
 * (`hasNextPage`) and its cursor (`nextKey`), when it sends them.
 *
 * @since 0.2.0
 * @category schemas
 */
export class ContractBillsPage extends Schema.Class<ContractBillsPage>("@account-bills/core/ContractBillsPage")({
  items: Schema.Array(ContractBillFromWire),
  hasNextPage: Schema.optional(Schema.Boolean),
  nextKey: Schema.optional(Schema.Unknown)
}) {}

/**
 * The data of a contract answer: v2's bare list or v3's `{hasNextPage, items, nextKey?}`, both
 * read as a `ContractBillsPage`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ContractBillsData: Schema.Schema<ContractBillsPage, unknown> = Schema.Union(
  Schema.transform(Schema.Array(RawRecord), ContractBillsPage, {
    strict: false,
    decode: (items) => ({ items }),
    encode: (page) => page.items
  }),
  ContractBillsPage
) as unknown as Schema.Schema<ContractBillsPage, unknown>

/**
 * An integer as a JSON number or as its digits in a string: the page counts of a funding answer
 * come both ways in public samples, as ids and times do.
 *
 * @since 0.3.0
 * @category schemas
 */
export const WireInt: Schema.Schema<number, number | string> = Schema.Union(
  Schema.Int,
  Schema.compose(Schema.String.pipe(Schema.pattern(/^-?\d{1,15}$/)), Schema.NumberFromString)
).annotations({ identifier: "WireInt" })

/**
 * One page of funding bills.
 *
 * @since 0.1.0
 * @category schemas
 */
export class FundingBillsPage extends Schema.Class<FundingBillsPage>("@account-bills/core/FundingBillsPage")({
  total: WireInt.pipe(Schema.compose(Schema.NonNegativeInt)),
  page: WireInt,
  pageSize: WireInt,
  /** v3's count of pages in the window, when the answer carries it. */
  pages: Schema.optional(WireInt),
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
