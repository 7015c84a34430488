/**
 * The export line writers, in process: exact values, CSV quoting, NDJSON as sent. The CLI
 * tests check the same through a real process; these pin each rule to one record.
 */
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { header, line } from "../src/cli/BillFormat.js"
import { expectCsvExport, expectNdjsonExport, parseCsv } from "./support/exportCheck.js"

// Values a writer could get wrong: trailing zeros, a leading zero, a negative amount, an id
// beyond 2^53, a name with a comma and a quote, a bizType with a line break, null fills.
const spotWire = {
  billId: "736825748291061726",
  coinId: 2,
  coinName: 'BTC, "wrapped"',
  bizType: "trade_in",
  fillSize: "0.50",
  fillValue: "765994.500",
  deltaAmount: "-250.0",
  afterAmount: "0012.000100",
  fees: "0.00010",
  cTime: "1700000000123"
}
const fundingWire = {
  billId: "9007199254740993",
  coinId: 7,
  coinName: "WXT",
  bizType: "airdrop\nreward",
  deltaAmount: "1.10",
  afterAmount: "1.10",
  fees: "0",
  cTime: "1700000000999",
  fillSize: null,
  fillValue: null
}
const spot = Schema.decodeUnknownSync(SpotBillFromWire)(spotWire)
const funding = Schema.decodeUnknownSync(FundingBillFromWire)(fundingWire)

describe("BillFormat", () => {
  it("CSV: a header, then every value exactly as sent, quoted where it must be", () => {
    const text = header("csv", "spot") + line("csv", "spot", spot)
    expect(text).toBe(
      "time,billId,coinId,coinName,bizType,fillSize,fillValue,deltaAmount,afterAmount,fees,cTime\n" +
        '2023-11-14T22:13:20.123Z,736825748291061726,2,"BTC, ""wrapped""",trade_in,0.50,765994.500,-250.0,0012.000100,0.00010,1700000000123\n'
    )
    expectCsvExport(text, "spot", [spotWire])
    const fundingText = header("csv", "funding") + line("csv", "funding", funding)
    expect(parseCsv(fundingText)[1]).toEqual([
      "2023-11-14T22:13:20.999Z",
      "9007199254740993",
      "7",
      "WXT",
      "airdrop\nreward",
      "1.10",
      "1.10",
      "0",
      "1700000000999"
    ])
    expectCsvExport(fundingText, "funding", [fundingWire])
  })

  it("CSV: a spot record without fills (null, or absent) has empty cells there", () => {
    const { fillValue: _, ...withoutFillValue } = { ...spotWire, fillSize: null }
    const bare = Schema.decodeUnknownSync(SpotBillFromWire)(withoutFillValue)
    const text = header("csv", "spot") + line("csv", "spot", bare)
    expect(parseCsv(text)[1]?.slice(5, 7)).toEqual(["", ""])
    expectCsvExport(text, "spot", [withoutFillValue as unknown as typeof spotWire])
  })

  it("NDJSON: no header, one line per bill, the record exactly as the server sent it", () => {
    expect(header("ndjson", "spot")).toBe("")
    expect(header("ndjson", "funding")).toBe("")
    const text = line("ndjson", "spot", spot) + line("ndjson", "funding", funding)
    expect(text).toBe(`${JSON.stringify(spotWire)}\n${JSON.stringify(fundingWire)}\n`)
    expectNdjsonExport(text, [spotWire, fundingWire])
  })
})
