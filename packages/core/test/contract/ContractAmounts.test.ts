/**
 * Amounts of the futures interface sent as JSON numbers, through the client's pipeline: every
 * digit kept, and a literal in exponent notation (how Java's `BigDecimal.toString` writes
 * 0.00000001, how Python's `json.dumps` writes a small float) read as the same exact decimal,
 * where the other two interfaces, which send their amounts as strings, refuse one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { BillsApi } from "../../src/index.js"
import { plain, withoutExponent } from "../../src/internal/decimalText.js"
import { envelope, makeStub } from "../support/stubHttp.js"

const record = (amounts: string) =>
  `{"billId":736825748291061726,"coin":"USDT","symbol":"cmt_btcusdt","businessType":"position_funding","transferReason":null,"ctime":"1735689600000",${amounts}}`

describe("contract amounts sent as JSON numbers", () => {
  it.effect("keeps every digit, and writes exponent notation out in full, exactly", () =>
    Effect.gen(function* () {
      const body = envelope([]).replace(
        '"data":[]',
        `"data":[${record('"amount":-1E-8,"balance":1.5e+2,"fillFee":0.10000000000000001')},${record('"amount":1e-7,"balance":12345678901234567890.5,"fillFee":1e-05')}]`
      )
      const stub = makeStub([{ status: 200, body }])
      const page = yield* Effect.flatMap(BillsApi, (api) => api.contractBills()).pipe(Effect.provide(stub.layer))
      const amounts = page.items.map((bill) => [bill.deltaAmount, bill.afterAmount, bill.fees].map(plain))
      expect(amounts).toEqual([
        ["-0.00000001", "150", "0.10000000000000001"],
        ["0.0000001", "12345678901234567890.5", "0.00001"]
      ])
      // The raw record keeps what was sent: a number a JS number holds as written stays one.
      expect(page.items[0]?.raw.amount).toBe("-1E-8")
      expect(page.items[1]?.raw.amount).toBe(1e-7)
      expect(page.items[1]?.raw.fillFee).toBe("1e-05")
    })
  )
})

describe("withoutExponent", () => {
  it("writes a literal with an exponent out in full, and leaves anything else", () => {
    expect(withoutExponent("1E-8")).toBe("0.00000001")
    expect(withoutExponent("-2.50e-3")).toBe("-0.00250")
    expect(withoutExponent("1.5E+2")).toBe("150")
    expect(withoutExponent("7e0")).toBe("7")
    expect(withoutExponent("1e999")).toBe(`1${"0".repeat(999)}`)
    for (const other of ["0.1", "12", "1e1000", "1e", "e5", "1.e5", "01e5", " 1e5", "1e5 ", "0x10"]) {
      expect(withoutExponent(other)).toBeUndefined()
    }
  })
})
