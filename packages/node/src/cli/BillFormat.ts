/**
 * How exported bills are written: NDJSON with exactly the values the server sent, or CSV
 * with the same exact values and an ISO-8601 time column.
 *
 * @since 0.1.0
 */
import type { BillKind } from "@account-bills/core"
import type { FundingBill, SpotBill } from "@account-bills/core"
import * as DateTime from "effect/DateTime"

/**
 * Output formats of `bills export`.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportFormat = "ndjson" | "csv"

/**
 * Accounts the commands read: core's `BillKind` but the futures account, which they do not read yet.
 *
 * @since 0.1.0
 * @category models
 */
export type Account = Exclude<BillKind, "contract">

/**
 * What `bills export --account` takes: one account, or both at once in one stream whose lines
 * each say which account they belong to.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportAccount = Account | "all"

const columns: Readonly<Record<Account, ReadonlyArray<string>>> = {
  funding: ["billId", "coinId", "coinName", "bizType", "deltaAmount", "afterAmount", "fees", "cTime"],
  spot: [
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
  ]
}

const csvField = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  const text = typeof value === "string" ? value : JSON.stringify(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * The first line of a file in `format`, if that format has one.
 *
 * @since 0.1.0
 * @category utils
 */
export const header = (format: ExportFormat, account: ExportAccount): string =>
  format !== "csv"
    ? ""
    : account === "all"
      ? `${["account", "time", ...columns.spot].join(",")}\n`
      : `${["time", ...columns[account]].join(",")}\n`

/**
 * One bill as one line, newline included. Values come from the raw record, so strings stay
 * strings and amounts keep every digit and trailing zero the server sent.
 *
 * @since 0.1.0
 * @category utils
 */
export const line = (format: ExportFormat, account: Account, bill: FundingBill | SpotBill): string =>
  format === "ndjson"
    ? `${JSON.stringify(bill.raw)}\n`
    : `${[DateTime.formatIso(bill.cTime), ...columns[account].map((column) => bill.raw[column])].map(csvField).join(",")}\n`

/**
 * One bill of an export of both accounts, newline included: in NDJSON the raw record with an
 * `account` field in front; in CSV an `account` column, then the spot columns (funding bills
 * have no fills: those cells stay empty).
 *
 * @since 0.1.0
 * @category utils
 */
export const taggedLine = (format: ExportFormat, account: Account, bill: FundingBill | SpotBill): string =>
  format === "ndjson"
    ? // Assigned last as well, so a record carrying its own `account` field cannot mislabel the line.
      `${JSON.stringify(Object.assign({ account }, bill.raw, { account }))}\n`
    : `${[account, DateTime.formatIso(bill.cTime), ...columns.spot.map((column) => bill.raw[column])].map(csvField).join(",")}\n`
