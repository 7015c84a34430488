import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FundingBillFromWire, FundingBillsPage, SpotBillFromWire } from "../../src/index.js"

// Shaped like records the exchange really returns (the exchange's documentation and other clients of it): an id beyond 2^53,
// null fills on funding records, a negative delta, a bizType beyond the documented ones and
// fields beyond the documented ones.
const realFunding = {
  billId: "736825748291061726",
  coinId: 2,
  coinName: "USDT",
  bizType: "rake_back_reward",
  deltaAmount: "-250.0",
  afterAmount: "1049.12345678",
  fees: "0",
  cTime: "1716364800123",
  fillSize: null,
  fillValue: null,
  extraField: { nested: true }
}

const realSpot = {
  billId: "736825748291061727",
  coinId: 1,
  coinName: "BTC",
  bizType: "trade_in",
  fillSize: "0.00012",
  fillValue: "8.1234",
  deltaAmount: "0.00011988",
  afterAmount: "0.50011988",
  fees: "-0.00000012",
  cTime: "1716364800999",
  orderId: "12345"
}

const decodeFunding = Schema.decodeUnknownEither(FundingBillFromWire)
const decodeSpot = Schema.decodeUnknownEither(SpotBillFromWire)

describe("records", () => {
  it("decodes a real funding record exactly", () => {
    const bill = Either.getOrThrow(decodeFunding(realFunding))
    expect(bill.billId).toBe("736825748291061726")
    expect(bill.bizType).toBe("rake_back_reward")
    expect(BigDecimal.equals(bill.deltaAmount, BigDecimal.unsafeFromString("-250"))).toBe(true)
    expect(BigDecimal.format(bill.afterAmount)).toBe("1049.12345678")
    expect(DateTime.toEpochMillis(bill.cTime)).toBe(1716364800123)
    // The raw record is exactly what came in, extra fields and formatting included.
    expect(bill.raw).toEqual(realFunding)
    expect(bill.raw.deltaAmount).toBe("-250.0")
  })

  it("decodes a real spot record exactly", () => {
    const bill = Either.getOrThrow(decodeSpot(realSpot))
    expect(Option.map(bill.fillSize, BigDecimal.format)).toEqual(Option.some("0.00012"))
    expect(BigDecimal.format(bill.fees)).toBe("-0.00000012")
    expect(bill.raw).toEqual(realSpot)
  })

  it("accepts null or missing fills on spot records", () => {
    const bill = Either.getOrThrow(decodeSpot({ ...realSpot, fillSize: null, fillValue: undefined }))
    expect(Option.isNone(bill.fillSize)).toBe(true)
    expect(Option.isNone(bill.fillValue)).toBe(true)
  })

  it("keeps digits beyond double precision", () => {
    const bill = Either.getOrThrow(
      decodeFunding({ ...realFunding, afterAmount: "12345678901234567890.123456789012345678" })
    )
    const exact = BigDecimal.unsafeFromString("12345678901234567890.123456789012345678")
    expect(BigDecimal.equals(bill.afterAmount, exact)).toBe(true)
    expect(bill.afterAmount.scale).toBe(18)
  })

  it("accepts cTime as an integer number too", () => {
    const bill = Either.getOrThrow(decodeFunding({ ...realFunding, cTime: 1716364800123 }))
    expect(DateTime.toEpochMillis(bill.cTime)).toBe(1716364800123)
  })

  for (const bad of ["", " 1", "1.", "abc", ".5", "1,5", "+-1", "1e", "0x10"]) {
    it(`rejects the amount ${JSON.stringify(bad)} with the field path`, () => {
      const result = decodeFunding({ ...realFunding, fees: bad })
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left.message).toContain("fees")
    })
  }

  // The response lexer keeps every number literal a JS number would not read back as written in
  // a string of its digits, so a number that reaches the schema is exact, and a literal in
  // exponent notation arrives as its text: both read as the value written.
  it("reads numbers as the digits they were written with: amounts, ids and coin ids either way", () => {
    const bill = Schema.decodeUnknownSync(FundingBillFromWire)({
      ...realFunding,
      billId: 1234567,
      coinId: "82",
      deltaAmount: 0.1,
      fees: "1e-5",
      afterAmount: -12.5
    })
    expect(bill.billId).toBe("1234567")
    expect(bill.coinId).toBe(82)
    expect(BigDecimal.format(bill.deltaAmount)).toBe("0.1")
    expect(BigDecimal.format(bill.fees)).toBe("0.00001")
    expect(BigDecimal.format(bill.afterAmount)).toBe("-12.5")
    expect(bill.raw.coinId).toBe("82")
  })

  for (const bad of ["", "17e11", "-1", "12.5", "abc"]) {
    it(`rejects cTime ${JSON.stringify(bad)}`, () => {
      expect(Either.isLeft(decodeFunding({ ...realFunding, cTime: bad }))).toBe(true)
    })
  }

  it("rejects a numeric billId, which may already have lost digits", () => {
    // biome-ignore lint/correctness/noPrecisionLoss: the lost precision is the point of this test
    expect(Either.isLeft(decodeFunding({ ...realFunding, billId: 736825748291061726 }))).toBe(true)
  })

  it("decodes a funding page", () => {
    const page = Schema.decodeUnknownSync(FundingBillsPage)({
      total: 31,
      page: 2,
      pageSize: 10,
      hasNextPage: true,
      items: [realFunding]
    })
    expect(page.items[0]?.billId).toBe("736825748291061726")
    expect(page.hasNextPage).toBe(true)
  })
})
