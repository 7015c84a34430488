/**
 * A fast path for decoding pages of records. It computes exactly what the schemas in `Bill.ts`
 * compute (the same `BigDecimal`s, normalized the same way, the same `DateTime.Utc`s, the
 * same classes), with plain checks instead of the general schema interpreter, which costs
 * about twenty times as much per record. It accepts only input the schemas would accept and
 * answers `undefined` for anything else, so the caller then runs the schema itself: failures
 * keep their exact messages and paths, and nothing is ever accepted that the schema rejects.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import { type BillId, FundingBill, FundingBillsPage, type RawRecord, SpotBill } from "../Bill.js"

const decimalPattern = /^-?\d+(\.\d+)?$/
const idPattern = /^\d+$/
const timePattern = /^\d{1,15}$/
/** Below the largest time a `DateTime` holds, so no check of `DateTime.make` can fail. */
const maxMillis = 999_999_999_999_999

/** Marks a record the fast path does not take. */
class Bail {}
const bail = new Bail()

/** `Amount`: the strict grammar, then exactly `normalize(fromString(text))`. */
const amount = (value: unknown): BigDecimal.BigDecimal => {
  if (typeof value !== "string" || !decimalPattern.test(value)) throw bail
  const dot = value.indexOf(".")
  const digits = dot === -1 ? value : value.slice(0, dot) + value.slice(dot + 1)
  return BigDecimal.normalize(BigDecimal.make(BigInt(digits), dot === -1 ? 0 : value.length - dot - 1))
}

/** `optionalWith(Amount, { nullable: true, as: "Option" })`. */
const optionalAmount = (record: RawRecord, key: string): Option.Option<BigDecimal.BigDecimal> => {
  const value = record[key]
  return value === undefined || value === null ? Option.none() : Option.some(amount(value))
}

const cTime = (value: unknown): DateTime.Utc => {
  let millis: number
  if (typeof value === "string") {
    if (!timePattern.test(value)) throw bail
    millis = Number(value)
  } else if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= maxMillis) {
    millis = value
  } else {
    throw bail
  }
  return DateTime.unsafeMake(millis) as DateTime.Utc
}

const string = (value: unknown): string => {
  if (typeof value !== "string") throw bail
  return value
}

const int = (value: unknown): number => {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw bail
  return value
}

const record = (value: unknown): RawRecord => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bail
  // A key the record schema would copy differently; let it decide.
  if (Object.hasOwn(value, "__proto__")) throw bail
  return value as RawRecord
}

/**
 * What the record classes' constructors do when validation is off and no field has a default
 * (as here): copy the fields onto a new instance. Done directly, it costs a sixth as much,
 * because the generic constructor copies the props twice and looks for defaults field by field.
 */
const construct = <A>(klass: { readonly prototype: A }, props: object): A =>
  Object.assign(Object.create(klass.prototype as object) as object, props) as A

const billId = (value: unknown): BillId => {
  if (typeof value !== "string" || !idPattern.test(value)) throw bail
  return value as BillId
}

const spotBill = (raw: RawRecord): SpotBill =>
  construct(SpotBill, {
    billId: billId(raw.billId),
    coinId: int(raw.coinId),
    coinName: string(raw.coinName),
    bizType: string(raw.bizType),
    deltaAmount: amount(raw.deltaAmount),
    afterAmount: amount(raw.afterAmount),
    fees: amount(raw.fees),
    cTime: cTime(raw.cTime),
    // The record itself: nothing else holds the parsed JSON (the schema keeps an equal copy).
    raw,
    fillSize: optionalAmount(raw, "fillSize"),
    fillValue: optionalAmount(raw, "fillValue")
  })

const fundingBill = (raw: RawRecord): FundingBill =>
  construct(FundingBill, {
    billId: billId(raw.billId),
    coinId: int(raw.coinId),
    coinName: string(raw.coinName),
    bizType: string(raw.bizType),
    deltaAmount: amount(raw.deltaAmount),
    afterAmount: amount(raw.afterAmount),
    fees: amount(raw.fees),
    cTime: cTime(raw.cTime),
    raw
  })

const items = <A>(value: unknown, one: (raw: RawRecord) => A): Array<A> => {
  if (!Array.isArray(value)) throw bail
  const out = new Array<A>(value.length)
  for (let i = 0; i < value.length; i++) out[i] = one(record(value[i]))
  return out
}

const attempt = <A>(decode: () => A): A | undefined => {
  try {
    return decode()
  } catch (error) {
    if (error === bail) return undefined
    throw error
  }
}

/**
 * The data of a spot response as `SpotBills` decodes it, or `undefined` to let the schema decide.
 */
export const spotBills = (data: unknown): ReadonlyArray<SpotBill> | undefined => attempt(() => items(data, spotBill))

/**
 * The data of a funding response as `FundingBillsPage` decodes it, or `undefined` to let the
 * schema decide.
 */
export const fundingBillsPage = (data: unknown): FundingBillsPage | undefined =>
  attempt(() => {
    const page = record(data)
    const total = int(page.total)
    if (total < 0 || typeof page.hasNextPage !== "boolean") throw bail
    return construct(FundingBillsPage, {
      total,
      page: int(page.page),
      pageSize: int(page.pageSize),
      hasNextPage: page.hasNextPage,
      items: items(page.items, fundingBill)
    })
  })
