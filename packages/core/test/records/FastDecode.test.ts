import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { FundingBill, FundingBillsPage, SpotBill, SpotBills } from "../../src/index.js"
import * as FastDecode from "../../src/internal/fastDecode.js"
import { BillGenerator, LazyBillBook } from "../../src/testing/index.js"

const schemaSpot = Schema.decodeUnknownEither(SpotBills)
const schemaFunding = Schema.decodeUnknownEither(FundingBillsPage)

/**
 * The fast path agrees exactly with the schema: it accepts what the schema accepts, with equal
 * values, and declines what the schema rejects. Only where `mayDecline` (a shape it hands to the
 * schema on purpose) may it decline valid data; a fast path that declined everything would make
 * every page take the slow path without any other test noticing.
 */
const expectAgreement = (data: unknown, mayDecline = false) => {
  const spot = FastDecode.spotBills(data)
  const viaSchema = schemaSpot(data)
  if (Either.isLeft(viaSchema)) expect(spot).toBeUndefined()
  else if (spot !== undefined || !mayDecline) expect(spot).toStrictEqual(viaSchema.right)
  const page = { total: 5, page: 1, pageSize: 100, hasNextPage: false, items: data }
  const funding = FastDecode.fundingBillsPage(page)
  const fundingViaSchema = schemaFunding(page)
  if (Either.isLeft(fundingViaSchema)) expect(funding).toBeUndefined()
  else if (funding !== undefined || !mayDecline) expect(funding).toStrictEqual(fundingViaSchema.right)
}

const generated = () => {
  const generator = BillGenerator.make({ seed: 3 })
  const window = { startMillis: 1_700_000_000_000, endMillis: 1_700_000_999_999 }
  return {
    spot: generator.generate("spot", { ...window, count: 300 }),
    funding: generator.generate("funding", { ...window, count: 300 }),
    lazy: LazyBillBook.make("spot", { ...window, count: 300 }).all()
  }
}

const strange: ReadonlyArray<unknown> = [
  undefined,
  null,
  "",
  " 1",
  "1.",
  ".5",
  "1e5",
  "-0",
  "0.000",
  "12300",
  "007",
  "abc",
  "1700000000000",
  "1234567890123456",
  "-1",
  0,
  -1,
  1.5,
  1_700_000_000_000,
  2 ** 53,
  1e16,
  true,
  {},
  []
]

describe("FastDecode", () => {
  it("decodes generated pages exactly like the schemas", () => {
    const { funding, lazy, spot } = generated()
    const fastSpot = FastDecode.spotBills(JSON.parse(JSON.stringify(spot)))
    expect(fastSpot).toBeDefined()
    expect(fastSpot).toStrictEqual(Schema.decodeUnknownSync(SpotBills)(JSON.parse(JSON.stringify(spot))))
    expect(FastDecode.spotBills(lazy)).toStrictEqual(Schema.decodeUnknownSync(SpotBills)(lazy))
    const page = { total: 300, page: 1, pageSize: 100, hasNextPage: true, items: funding }
    const fastFunding = FastDecode.fundingBillsPage(page)
    expect(fastFunding).toBeInstanceOf(FundingBillsPage)
    expect(fastSpot?.[0]).toBeInstanceOf(SpotBill)
    expect(fastFunding?.items[0]).toBeInstanceOf(FundingBill)
    expect(fastFunding).toStrictEqual(Schema.decodeUnknownSync(FundingBillsPage)(page))
    // Funding records carry fillSize/fillValue null; spot ones may lack them or carry null.
    const { fillSize: _, ...withoutFill } = spot[0] as unknown as Record<string, unknown>
    expectAgreement([withoutFill, { ...spot[1], fillValue: null }, { ...spot[2], extra: { nested: [1] } }])
  })

  it("declines whatever the schema would reject, and agrees on the rest", () => {
    const { spot } = generated()
    const fields = [...Object.keys(spot[0] as object), "fillSize"]
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: spot.length - 1 }),
        fc.constantFrom(...fields),
        fc.constantFrom(...strange),
        fc.boolean(),
        (index, field, value, drop) => {
          const record: Record<string, unknown> = { ...spot[index] }
          if (drop) delete record[field]
          else record[field] = value
          // The fast path reads the wire's usual types; the schema also reads numbers the other
          // way (a number for a string, a coin id as digits, an amount's exponent), and may be
          // left to do so.
          const normalised = typeof value === "number" || field === "coinId" || /e/i.test(String(value))
          expectAgreement([spot[0], record], normalised)
        }
      ),
      { numRuns: 500 }
    )
    for (const data of strange) expectAgreement(data)
    expectAgreement([null])
    expectAgreement([[spot[0]]])
    expectAgreement(JSON.parse(`[${JSON.stringify(spot[0]).replace("{", '{"__proto__":{"x":1},')}]`), true)
  })
})
