/**
 * Checks an export against the raw records the exchange holds: every column of every row, in
 * CSV and NDJSON, each bill once. Exported values must be the exact text the server sent, so
 * the comparison is on strings, never on parsed numbers.
 */
import type { WireBill } from "@account-bills/core/testing"
import { expect } from "@effect/vitest"

const funding = ["billId", "coinId", "coinName", "bizType", "deltaAmount", "afterAmount", "fees", "cTime"] as const
const spot = [
  "billId",
  "coinId",
  "coinName",
  "bizType",
  "fillSize",
  "fillValue",
  "deltaAmount",
  "afterAmount",
  "fees",
  "cTime"
] as const

/** The CSV columns after `time`, per account, as the README documents them. */
export const csvColumns = { funding, spot } as const

/**
 * Rows of RFC 4180 CSV: fields separated by commas, a field in double quotes may hold commas,
 * quotes (doubled) and line breaks. Written here, apart from the writer, so a shared mistake
 * cannot hide.
 */
export const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i += 2
        continue
      }
      if (c === '"') quoted = false
      else field += c
      i++
      continue
    }
    if (c === '"' && field === "") quoted = true
    else if (c === ",") {
      row.push(field)
      field = ""
    } else if (c === "\n") {
      row.push(field)
      rows.push(row)
      row = []
      field = ""
    } else field += c
    i++
  }
  if (quoted) expect.fail("the CSV ends inside a quoted field")
  if (field !== "" || row.length > 0) expect.fail(`the CSV does not end with a line break: ${JSON.stringify(field)}`)
  return rows
}

/** What a CSV cell must hold for a raw value: the string itself, a number's digits, null as empty. */
const cell = (value: unknown): string => (value === null || value === undefined ? "" : String(value))

/** `text` is a CSV export of exactly `expected` (in any order), every column equal to the raw record. */
export const expectCsvExport = (text: string, account: "funding" | "spot", expected: ReadonlyArray<WireBill>): void => {
  const [head, ...rows] = parseCsv(text)
  const columns = csvColumns[account]
  expect(head).toEqual(["time", ...columns])
  const byId = new Map(expected.map((bill) => [bill.billId, bill]))
  const seen = new Set<string>()
  for (const row of rows) {
    expect(row).toHaveLength(columns.length + 1)
    const billId = row[1] as string
    const bill = byId.get(billId)
    if (bill === undefined) expect.fail(`row for bill ${billId}, which the exchange does not hold or was not selected`)
    if (seen.has(billId)) expect.fail(`bill ${billId} is written twice`)
    seen.add(billId)
    const raw = bill as unknown as Record<string, unknown>
    expect(row).toEqual([new Date(Number(bill.cTime)).toISOString(), ...columns.map((column) => cell(raw[column]))])
  }
  expect(seen.size).toBe(expected.length)
}

/**
 * `text` is an NDJSON export of exactly `expected` (in any order): each line the record's exact
 * JSON. With `partial`, of some of them (an interrupted export); returns how many lines.
 */
export const expectNdjsonExport = (
  text: string,
  expected: ReadonlyArray<WireBill>,
  options: { readonly partial?: boolean } = {}
): number => {
  expect(text === "" || text.endsWith("\n")).toBe(true)
  const lines = text === "" ? [] : text.slice(0, -1).split("\n")
  const byId = new Map(expected.map((bill) => [bill.billId, bill]))
  const seen = new Set<string>()
  for (const line of lines) {
    const billId = (JSON.parse(line) as { readonly billId: string }).billId
    const bill = byId.get(billId)
    if (bill === undefined) expect.fail(`line for bill ${billId}, which the exchange does not hold or was not selected`)
    if (seen.has(billId)) expect.fail(`bill ${billId} is written twice`)
    seen.add(billId)
    // Field order and every character as the server sent it: strings stay strings, "0.50" stays "0.50".
    expect(line).toBe(JSON.stringify(bill))
  }
  if (options.partial !== true) expect(seen.size).toBe(expected.length)
  return seen.size
}

/** What an export of both accounts must hold: the exchange's records of each. */
export interface BothAccounts {
  readonly funding: ReadonlyArray<WireBill>
  readonly spot: ReadonlyArray<WireBill>
}

/**
 * `text` is an NDJSON export of both accounts (in any order, interleaved): each line the
 * record's exact JSON with `"account":"<account>",` written in front, each bill once, under
 * the account that holds it. Ids are compared per account, as the two accounts number theirs
 * apart. With `partial`, of some of them (an interrupted export); returns how many lines.
 */
export const expectTaggedNdjsonExport = (
  text: string,
  expected: BothAccounts,
  options: { readonly partial?: boolean } = {}
): number => {
  expect(text.endsWith("\n")).toBe(true)
  const seen = { funding: new Set<string>(), spot: new Set<string>() }
  const byId = {
    funding: new Map(expected.funding.map((bill) => [bill.billId, bill])),
    spot: new Map(expected.spot.map((bill) => [bill.billId, bill]))
  }
  for (const line of text.slice(0, -1).split("\n")) {
    const parsed = JSON.parse(line) as { readonly account: unknown; readonly billId: string }
    if (parsed.account !== "funding" && parsed.account !== "spot") expect.fail(`line without an account: ${line}`)
    const account = parsed.account
    const bill = byId[account].get(parsed.billId)
    if (bill === undefined) expect.fail(`${account} line for bill ${parsed.billId}, which that account does not hold`)
    if (seen[account].has(parsed.billId)) expect.fail(`${account} bill ${parsed.billId} is written twice`)
    seen[account].add(parsed.billId)
    // By text, not by the writer's code: the tag, then every character of the record as sent.
    expect(line).toBe(`{"account":"${account}",${JSON.stringify(bill).slice(1)}`)
  }
  if (options.partial !== true) {
    expect(seen.funding.size).toBe(expected.funding.length)
    expect(seen.spot.size).toBe(expected.spot.length)
  }
  return seen.funding.size + seen.spot.size
}

/**
 * `text` is a CSV export of funding and spot (as `--account all --coin-id` writes it: the futures account has no coin ids): an `account` column, `time`, then the spot
 * columns (a funding record's missing fills as empty cells), every cell equal to the raw
 * record, each bill once under its account.
 */
export const expectTaggedCsvExport = (text: string, expected: BothAccounts): void => {
  const [head, ...rows] = parseCsv(text)
  // The futures account's two columns close the header; a funding or spot row leaves them empty.
  expect(head).toEqual(["account", "time", ...spot, "symbol", "transferReason"])
  const seen = { funding: new Set<string>(), spot: new Set<string>() }
  const byId = {
    funding: new Map(expected.funding.map((bill) => [bill.billId, bill])),
    spot: new Map(expected.spot.map((bill) => [bill.billId, bill]))
  }
  for (const row of rows) {
    expect(row).toHaveLength(spot.length + 4)
    const account = row[0]
    if (account !== "funding" && account !== "spot") expect.fail(`row without an account: ${row.join(",")}`)
    const billId = row[2] as string
    const bill = byId[account].get(billId)
    if (bill === undefined) expect.fail(`${account} row for bill ${billId}, which that account does not hold`)
    if (seen[account].has(billId)) expect.fail(`${account} bill ${billId} is written twice`)
    seen[account].add(billId)
    const raw = bill as unknown as Record<string, unknown>
    expect(row).toEqual([
      account,
      new Date(Number(bill.cTime)).toISOString(),
      ...spot.map((column) => cell(raw[column])),
      "",
      ""
    ])
  }
  expect(seen.funding.size).toBe(expected.funding.length)
  expect(seen.spot.size).toBe(expected.spot.length)
}
