/**
 * The response lexer of the futures interface: a number literal a JS number cannot hold as
 * written keeps its text, as a string; everything else is left as it was.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { exactNumbers } from "../../src/internal/exactNumbers.js"

describe("exactNumbers", () => {
  it("keeps every digit of an id above 2^53 sent as a number", () => {
    const text = '{"billId":736825748291061726,"time":1700000000000}'
    expect(JSON.parse(text).billId).toBe(736825748291061800)
    const parsed = JSON.parse(exactNumbers(text))
    expect(parsed).toEqual({ billId: "736825748291061726", time: 1700000000000 })
    // Its nearest double prints as these digits, but is another number: still kept as text.
    expect(JSON.parse(exactNumbers("[836825748291194900]"))).toEqual(["836825748291194900"])
  })

  it("leaves strings, escapes and numbers that read back as written alone", () => {
    const text = '{"a":"736825748291061726","b":"x\\"9007199254740993\\"","c":-1140,"d":12.5,"e":[1,2,3]}'
    expect(exactNumbers(text)).toBe(text)
  })

  it("keeps decimals that a number would shorten, and leaves text that is not JSON", () => {
    expect(JSON.parse(exactNumbers('{"income":0.10,"x":-0.000000000000000001}'))).toEqual({
      income: "0.10",
      x: "-0.000000000000000001"
    })
    expect(exactNumbers("<html>12345678901234567890</html>")).toBe('<html>"12345678901234567890"</html>')
    expect(exactNumbers("{1-2}")).toBe("{1-2}")
  })

  it("keeps a literal with an exponent whole, as written, where a number would change it", () => {
    expect(JSON.parse(exactNumbers("[1e400,1E+400,-1e-400,1E-8,1e-7]"))).toEqual([
      "1e400",
      "1E+400",
      "-1e-400",
      "1E-8",
      1e-7
    ])
  })

  it("parses to the same value as JSON.parse wherever numbers are exact, and keeps digits where not", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer(), fc.string()), { maxLength: 20 }),
        (values) => {
          const text = `[${values.map((v) => (typeof v === "bigint" ? v.toString() : JSON.stringify(v))).join(",")}]`
          const parsed = JSON.parse(exactNumbers(text)) as ReadonlyArray<unknown>
          values.forEach((value, i) => {
            if (typeof value !== "bigint") expect(parsed[i]).toEqual(value)
            else if (Number.isSafeInteger(Number(value))) expect(parsed[i]).toBe(Number(value))
            else expect(String(parsed[i])).toBe(value.toString())
          })
        }
      ),
      { numRuns: 300 }
    )
  })
})
