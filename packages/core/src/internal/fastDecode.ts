/**
 * A fast path for decoding pages of records. It computes exactly what the schemas in `Bill.ts`
 * compute (the same `BigDecimal`s, normalized the same way, the same `DateTime.Utc`s, the
 * same classes), with plain checks instead of the general schema interpreter, which costs
 * about twenty times as much per record. It accepts only input the schemas would accept and
 * answers `undefined` for anything else (every helper here does the same), so the caller then runs the schema itself: failures
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

/** `Amount`: the strict grammar, then exactly `normalize(fromString(text))`. */
const amount = (value: unknown): BigDecimal.BigDecimal | undefined => {
  if (typeof value !== "string" || !decimalPattern.test(value)) return undefined
  const dot = value.indexOf(".")
  const digits = dot === -1 ? value : value.slice(0, dot) + value.slice(dot + 1)
  return BigDecimal.normalize(BigDecimal.make(BigInt(digits), dot === -1 ? 0 : value.length - dot - 1))
}

/** `optionalWith(Amount, { nullable: true, as: "Option" })`; `null` where the schema would fail. */
const optionalAmount = (value: unknown): Option.Option<BigDecimal.BigDecimal> | null => {
  if (value === undefined || value === null) return Option.none()
  const decoded = amount(value)
  return decoded === undefined ? null : Option.some(decoded)
}

const cTime = (value: unknown): DateTime.Utc | undefined => {
  const millis =
    typeof value === "string" && timePattern.test(value)
      ? Number(value)
      : typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= maxMillis
        ? value
        : undefined
  return millis === undefined ? undefined : (DateTime.unsafeMake(millis) as DateTime.Utc)
}

const isInt = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value)

const record = (value: unknown): RawRecord | undefined =>
  typeof value !== "object" || value === null || Array.isArray(value) || Object.hasOwn(value, "__proto__")
    ? // A `__proto__` key the record schema would copy differently; let it decide.
      undefined
    : (value as RawRecord)

/**
 * What the record classes' constructors do when validation is off and no field has a default
 * (as here): copy the fields onto a new instance. Done directly, it costs a sixth as much,
 * because the generic constructor copies the props twice and looks for defaults field by field.
 */
const construct = <A>(klass: { readonly prototype: A }, ...props: ReadonlyArray<object>): A =>
  Object.assign(Object.create(klass.prototype as object) as object, ...props) as A

/** The fields funding and spot records share, or `undefined` when one would fail the schema. */
const common = (raw: RawRecord) => {
  const { billId, coinId, coinName, bizType } = raw
  const deltaAmount = amount(raw.deltaAmount)
  const afterAmount = amount(raw.afterAmount)
  const fees = amount(raw.fees)
  const time = cTime(raw.cTime)
  if (
    typeof billId !== "string" ||
    !idPattern.test(billId) ||
    !isInt(coinId) ||
    typeof coinName !== "string" ||
    typeof bizType !== "string" ||
    deltaAmount === undefined ||
    afterAmount === undefined ||
    fees === undefined ||
    time === undefined
  ) {
    return undefined
  }
  // `raw` is the record itself: nothing else holds the parsed JSON (the schema keeps an equal copy).
  return { billId: billId as BillId, coinId, coinName, bizType, deltaAmount, afterAmount, fees, cTime: time, raw }
}

const fundingBill = (value: unknown): FundingBill | undefined => {
  const raw = record(value)
  const fields = raw === undefined ? undefined : common(raw)
  return fields === undefined ? undefined : construct(FundingBill, fields)
}

const spotBill = (value: unknown): SpotBill | undefined => {
  const raw = record(value)
  const fields = raw === undefined ? undefined : common(raw)
  if (raw === undefined || fields === undefined) return undefined
  const fillSize = optionalAmount(raw.fillSize)
  const fillValue = optionalAmount(raw.fillValue)
  return fillSize === null || fillValue === null ? undefined : construct(SpotBill, fields, { fillSize, fillValue })
}

const items = <A>(value: unknown, one: (value: unknown) => A | undefined): Array<A> | undefined => {
  if (!Array.isArray(value)) return undefined
  const out = new Array<A>(value.length)
  for (let i = 0; i < value.length; i++) {
    const decoded = one(value[i])
    if (decoded === undefined) return undefined
    out[i] = decoded
  }
  return out
}

/**
 * The data of a spot response as `SpotBills` decodes it, or `undefined` to let the schema decide.
 */
export const spotBills = (data: unknown): ReadonlyArray<SpotBill> | undefined => items(data, spotBill)

/**
 * The data of a funding response as `FundingBillsPage` decodes it, or `undefined` to let the
 * schema decide.
 */
export const fundingBillsPage = (data: unknown): FundingBillsPage | undefined => {
  const page = record(data)
  if (page === undefined) return undefined
  const { total, hasNextPage } = page
  if (!isInt(total) || total < 0 || typeof hasNextPage !== "boolean" || !isInt(page.page) || !isInt(page.pageSize)) {
    return undefined
  }
  const bills = items(page.items, fundingBill)
  return bills === undefined
    ? undefined
    : construct(FundingBillsPage, { total, page: page.page, pageSize: page.pageSize, hasNextPage, items: bills })
}
