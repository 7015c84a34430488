/**
 * How exported bills are written: NDJSON with exactly the values the server sent, or CSV
 * with the same exact values and an ISO-8601 time column.
 *
 * @since 0.1.0
 */
import { BillKind } from "@account-bills/core"
import type { ContractBill, FundingBill, SpotBill } from "@account-bills/core"
import * as DateTime from "effect/DateTime"

/**
 * Output formats of `bills export`.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportFormat = "ndjson" | "csv"

/**
 * Accounts the exchange keeps bills for: funding, spot and (since 0.2.0) the futures account.
 *
 * @since 0.1.0
 * @category models
 */
export type Account = BillKind

/**
 * What `bills export --account` takes: one account, or all three at once in one stream whose
 * lines each say which account they belong to.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportAccount = Account | "all"

/**
 * The accounts `--account` names: the one given, or all three for `all`.
 *
 * @since 0.2.0
 * @category utils
 */
export const accountsOf = (account: ExportAccount): ReadonlyArray<Account> =>
  account === "all" ? BillKind.literals : [account]

/**
 * A bill of any account.
 *
 * @since 0.2.0
 * @category models
 */
export type AnyBill = FundingBill | SpotBill | ContractBill

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
  ],
  contract: ["billId", "coinName", "symbol", "bizType", "deltaAmount", "afterAmount", "fees", "transferReason", "cTime"]
}

/** The columns of an export of all accounts: the spot columns, then the contract ones the others lack. */
const allColumns: ReadonlyArray<string> = [...columns.spot, "symbol", "transferReason"]

/**
 * Where a column's value sits in a contract record: the futures interface names its fields
 * apart, and apart again by version (v3 first, then v2; see ContractBill in core).
 */
const contractFields: Readonly<Record<string, ReadonlyArray<string>>> = {
  coinName: ["asset", "coin"],
  bizType: ["incomeType", "businessType"],
  deltaAmount: ["income", "amount"],
  afterAmount: ["balance"],
  fees: ["fillFee"],
  cTime: ["time", "ctime"]
}

/** A column's value as the server sent it. */
const cell = (account: Account, bill: AnyBill, column: string): unknown => {
  if (account !== "contract") return bill.raw[column]
  const names = contractFields[column] ?? [column]
  return bill.raw[names.find((name) => bill.raw[name] !== undefined) ?? column]
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
      ? `${["account", "time", ...allColumns].join(",")}\n`
      : `${["time", ...columns[account]].join(",")}\n`

/**
 * One bill as one line, newline included. Values come from the raw record, so strings stay
 * strings and amounts keep every digit and trailing zero the server sent.
 *
 * @since 0.1.0
 * @category utils
 */
export const line = (format: ExportFormat, account: Account, bill: AnyBill): string =>
  format === "ndjson"
    ? `${JSON.stringify(bill.raw)}\n`
    : `${[DateTime.formatIso(bill.cTime), ...columns[account].map((column) => cell(account, bill, column))].map(csvField).join(",")}\n`

/**
 * One bill of an export of all accounts, newline included: in NDJSON the raw record with an
 * `account` field in front; in CSV an `account` column, then the spot columns and the contract
 * ones (a contract bill's under the common names; cells an account lacks stay empty).
 *
 * @since 0.1.0
 * @category utils
 */
export const taggedLine = (format: ExportFormat, account: Account, bill: AnyBill): string =>
  format === "ndjson"
    ? // Assigned last as well, so a record carrying its own `account` field cannot mislabel the line.
      `${JSON.stringify(Object.assign({ account }, bill.raw, { account }))}\n`
    : `${[account, DateTime.formatIso(bill.cTime), ...allColumns.map((column) => cell(account, bill, column))].map(csvField).join(",")}\n`
