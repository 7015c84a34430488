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
import type { Mutable } from "effect/Types"
import { type BillId, FundingBill, FundingBillsPage, type RawRecord, SpotBill } from "../Bill.js"
import { decimalPattern, idPattern, millisPattern } from "./grammar.js"

/** Below the largest time a `DateTime` holds, so no check of `DateTime.make` can fail. */
const maxMillis = 999_999_999_999_999

/** What `normalize(fromString("0"))` returns: effect's own zero, the same object every time. */
const zero = BigDecimal.normalize(BigDecimal.make(BigInt(0), 0))
const someZero = Option.some(zero)

/** `Amount`: the strict grammar, then exactly `normalize(fromString(text))`. */
const amount = (value: unknown): BigDecimal.BigDecimal | undefined => {
  // Fees and fills are mostly "0"; the schema returns the shared zero for it too.
  if (value === "0") return zero
  if (typeof value !== "string" || !decimalPattern.test(value)) return undefined
  const dot = value.indexOf(".")
  const digits = dot === -1 ? value : value.replace(".", "")
  return BigDecimal.normalize(BigDecimal.make(BigInt(digits), dot === -1 ? 0 : value.length - dot - 1))
}

/** `optionalWith(Amount, { nullable: true, as: "Option" })`; `null` where the schema would fail. */
const optionalAmount = (value: unknown): Option.Option<BigDecimal.BigDecimal> | null => {
  if (value === undefined || value === null) return Option.none()
  const decoded = amount(value)
  return decoded === undefined ? null : decoded === zero ? someZero : Option.some(decoded)
}

const cTime = (value: unknown): DateTime.Utc | undefined => {
  const millis =
    typeof value === "string" && millisPattern.test(value)
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
 * A record of `klass` as its constructor makes it with validation off (the fields copied
 * onto an object with the class's prototype; no field has a default), with the fields both
 * record kinds share, or `undefined` when one would fail the schema. Setting the fields one
 * by one in a fixed order costs a seventh of `Object.assign` from field objects (and a small
 * part of the generic constructor), and gives every record the same shape.
 */
const common = <A extends FundingBill>(klass: { readonly prototype: A }, raw: RawRecord): Mutable<A> | undefined => {
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
  const bill = Object.create(klass.prototype as object) as Mutable<A>
  bill.billId = billId as BillId
  bill.coinId = coinId
  bill.coinName = coinName
  bill.bizType = bizType
  bill.deltaAmount = deltaAmount
  bill.afterAmount = afterAmount
  bill.fees = fees
  bill.cTime = time
  // `raw` is the record itself: nothing else holds the parsed JSON (the schema keeps an equal copy).
  bill.raw = raw
  return bill
}

const fundingBill = (value: unknown): FundingBill | undefined => {
  const raw = record(value)
  return raw === undefined ? undefined : common(FundingBill, raw)
}

const spotBill = (value: unknown): SpotBill | undefined => {
  const raw = record(value)
  const bill = raw === undefined ? undefined : common(SpotBill, raw)
  if (raw === undefined || bill === undefined) return undefined
  const fillSize = optionalAmount(raw.fillSize)
  const fillValue = optionalAmount(raw.fillValue)
  if (fillSize === null || fillValue === null) return undefined
  bill.fillSize = fillSize
  bill.fillValue = fillValue
  return bill
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
  const { total, hasNextPage, pages } = page
  if (
    !isInt(total) ||
    total < 0 ||
    typeof hasNextPage !== "boolean" ||
    !isInt(page.page) ||
    !isInt(page.pageSize) ||
    (pages !== undefined && !isInt(pages))
  ) {
    return undefined
  }
  const bills = items(page.items, fundingBill)
  if (bills === undefined) return undefined
  const decoded = Object.create(FundingBillsPage.prototype) as Mutable<FundingBillsPage>
  decoded.total = total
  decoded.page = page.page
  decoded.pageSize = page.pageSize
  if (pages !== undefined) decoded.pages = pages
  decoded.hasNextPage = hasNextPage
  decoded.items = bills
  return decoded
}
