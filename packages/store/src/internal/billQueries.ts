/**
 * The bills of `ab_bills`: kept as the exchange sent them (amounts and ids as text, the raw
 * record as JSON), and listed back the way the exchange lists them.
 */
import type { ContractBill, FundingBill, SpotBill } from "@account-bills/core"
import * as DateTime from "effect/DateTime"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ContractRow, CountRow, FundingRow, Kind, Order, SpotRow, SyncKey } from "./storeRows.js"

/** A bill as a row of `ab_bills`. */
const BillRow = Schema.Struct({
  account: Schema.String,
  kind: Kind,
  bill_id: Schema.String,
  c_time: Schema.Number,
  coin_id: Schema.Number,
  coin_name: Schema.String,
  biz_type: Schema.String,
  delta_amount: Schema.String,
  after_amount: Schema.String,
  fees: Schema.String,
  fill_size: Schema.NullOr(Schema.String),
  fill_value: Schema.NullOr(Schema.String),
  raw: Schema.String
})

/** Amounts as the exchange wrote them: the raw record's text, never a re-rendered number. */
const text = (raw: Readonly<Record<string, unknown>>, field: string): string | null => {
  const value = raw[field]
  return value === null || value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value)
}

/** The row of a bill of (account, kind). */
export const toRow = (account: string, kind: typeof Kind.Type, bill: FundingBill | SpotBill): typeof BillRow.Type => ({
  account,
  kind,
  bill_id: bill.billId,
  c_time: Number(bill.raw.cTime),
  coin_id: bill.coinId,
  coin_name: bill.coinName,
  biz_type: bill.bizType,
  delta_amount: text(bill.raw, "deltaAmount") ?? "",
  after_amount: text(bill.raw, "afterAmount") ?? "",
  fees: text(bill.raw, "fees") ?? "",
  fill_size: text(bill.raw, "fillSize"),
  fill_value: text(bill.raw, "fillValue"),
  raw: JSON.stringify(bill.raw)
})

/** A contract bill as a row of `ab_contract_bills`. */
const ContractBillRow = Schema.Struct({
  account: Schema.String,
  bill_id: Schema.String,
  c_time: Schema.Number,
  coin_name: Schema.String,
  symbol: Schema.NullOr(Schema.String),
  biz_type: Schema.String,
  delta_amount: Schema.String,
  after_amount: Schema.String,
  fees: Schema.String,
  transfer_reason: Schema.NullOr(Schema.String),
  raw: Schema.String
})

/** The first of `fields` the raw record has, as text: v3 and v2 name the contract fields apart. */
const textOf = (raw: Readonly<Record<string, unknown>>, fields: ReadonlyArray<string>): string | null =>
  fields.reduce<string | null>((found, field) => found ?? text(raw, field), null)

/** The row of a contract bill of `account`. */
export const toContractRow = (account: string, bill: ContractBill): typeof ContractBillRow.Type => ({
  account,
  bill_id: bill.billId,
  c_time: DateTime.toEpochMillis(bill.cTime),
  coin_name: bill.coinName,
  symbol: Option.getOrNull(bill.symbol),
  biz_type: bill.bizType,
  delta_amount: textOf(bill.raw, ["income", "amount"]) ?? "",
  after_amount: textOf(bill.raw, ["balance"]) ?? "",
  fees: textOf(bill.raw, ["fillFee"]) ?? "",
  transfer_reason: Option.getOrNull(bill.transferReason),
  raw: JSON.stringify(bill.raw)
})

/** The filter and window of a read, inclusive bounds in epoch ms, with its listing order. */
const Listing = Schema.Struct({
  account: Schema.String,
  kind: Kind,
  order: Order,
  coinId: Schema.optional(Schema.Number),
  coinName: Schema.optional(Schema.String),
  symbol: Schema.optional(Schema.String),
  bizType: Schema.optional(Schema.String),
  start: Schema.optional(Schema.Number),
  end: Schema.optional(Schema.Number),
  limit: Schema.Number,
  offset: Schema.Number,
  /** Only the bills after this one in the listing's order (a keyset; `offset` counts from it). */
  after: Schema.optional(Schema.Struct({ time: Schema.Number, billId: Schema.String }))
})

/** A read's filter, window and order. */
export type Listing = typeof Listing.Type

/** The queries on `ab_bills`, over the `SqlClient` in context. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Inserts rows into `table`, dropping those whose key is held already; one row back per new bill. */
  const inserting = <Row extends Record<string, unknown>>(table: string, row: Schema.Schema<Row>) =>
    SqlSchema.findAll({
      Request: Schema.Array(row),
      Result: Schema.Struct({ bill_id: Schema.String }),
      execute: (rows) =>
        rows.length === 0
          ? Effect.succeed([])
          : sql`INSERT INTO ${sql(table)} ${sql.insert(rows)} ON CONFLICT DO NOTHING RETURNING bill_id`
    })
  const insert = inserting("ab_bills", BillRow)
  const insertContract = inserting("ab_contract_bills", ContractBillRow)

  /**
   * PostgreSQL: `rows` inserted into `table` behind `fence`, a data-modifying statement that
   * returns a row when the writer holds the lease, all in one statement (a data-modifying `WITH`
   * is atomic, as a transaction of the two was): the rows go in only where the fence let a row
   * through, so a writer that lost its lease adds nothing. The rows travel as one JSON parameter,
   * typed by the table's own row type (`json_populate_recordset`), not as a parameter per field.
   * Answers whether the fence let the write through, and how many rows were new.
   */
  const insertBehind = <Row extends Record<string, unknown>>(
    table: "ab_bills" | "ab_contract_bills",
    rows: ReadonlyArray<Row>,
    fence: Statement.Fragment
  ) => {
    const columns = sql.literal(Object.keys(rows[0] ?? {}).join(", "))
    return Effect.map(
      sql<{ readonly advanced: number | string; readonly added: number | string }>`WITH fence AS (${fence}),
        added AS (
          INSERT INTO ${sql(table)} (${columns})
          SELECT ${columns} FROM json_populate_recordset(NULL::${sql(table)}, ${JSON.stringify(rows)}::json)
          WHERE EXISTS (SELECT 1 FROM fence)
          ON CONFLICT DO NOTHING RETURNING bill_id)
        SELECT (SELECT COUNT(*) FROM fence) AS advanced, (SELECT COUNT(*) FROM added) AS added`,
      ([row]) => ({ advanced: Number(row?.advanced ?? 0) > 0, added: Number(row?.added ?? 0) })
    )
  }

  /** The contract bills sit in a table of their own, with no kind column (see migrations.ts). */
  const table = (kind: typeof Kind.Type) => (kind === "contract" ? sql`ab_contract_bills` : sql`ab_bills`)

  const where = (query: typeof Listing.Encoded) =>
    sql.and([
      sql`account = ${query.account}`,
      ...(query.kind === "contract" ? [] : [sql`kind = ${query.kind}`]),
      ...(query.coinId === undefined ? [] : [sql`coin_id = ${query.coinId}`]),
      ...(query.coinName === undefined ? [] : [sql`coin_name = ${query.coinName}`]),
      ...(query.symbol === undefined ? [] : [sql`symbol = ${query.symbol}`]),
      ...(query.bizType === undefined ? [] : [sql`biz_type = ${query.bizType}`]),
      ...(query.start === undefined ? [] : [sql`c_time >= ${query.start}`]),
      ...(query.end === undefined ? [] : [sql`c_time <= ${query.end}`])
    ])

  /** After `query.after` in the listing's order, the same order the ORDER BY below writes. */
  const keyset = (query: typeof Listing.Encoded) => {
    if (query.after === undefined) return []
    const { time, billId } = query.after
    const length = billId.length
    return query.order === "newest-first"
      ? [
          sql`c_time <= ${time}`,
          sql`(c_time < ${time} OR LENGTH(bill_id) < ${length} OR (LENGTH(bill_id) = ${length} AND bill_id < ${billId}))`
        ]
      : [
          sql`c_time >= ${time}`,
          sql`(c_time > ${time} OR LENGTH(bill_id) > ${length} OR (LENGTH(bill_id) = ${length} AND bill_id > ${billId}))`
        ]
  }

  // Ids are digit strings: by length, then by text, is numeric order without leaving text.
  const listed = (query: typeof Listing.Encoded) =>
    sql`SELECT raw FROM ${table(query.kind)} WHERE ${sql.and([where(query), ...keyset(query)])} ${
      query.order === "newest-first"
        ? sql`ORDER BY c_time DESC, LENGTH(bill_id) DESC, bill_id DESC`
        : sql`ORDER BY c_time ASC, LENGTH(bill_id) ASC, bill_id ASC`
    } LIMIT ${query.limit} OFFSET ${query.offset}`

  /** How many bills match a listing's filter and window (its limit and offset aside). */
  const countMatching = SqlSchema.findOne({
    Request: Listing,
    Result: CountRow,
    execute: (query) => sql`SELECT COUNT(*) AS n FROM ${table(query.kind)} WHERE ${where(query)}`
  })

  const fundingRows = SqlSchema.findAll({ Request: Listing, Result: FundingRow, execute: listed })
  const spotRows = SqlSchema.findAll({ Request: Listing, Result: SpotRow, execute: listed })
  const contractRows = SqlSchema.findAll({ Request: Listing, Result: ContractRow, execute: listed })

  /** How many bills of (account, kind) the store holds. */
  const count = SqlSchema.findOne({
    Request: SyncKey,
    Result: CountRow,
    execute: (key) =>
      key.kind === "contract"
        ? sql`SELECT COUNT(*) AS n FROM ab_contract_bills WHERE account = ${key.account}`
        : sql`SELECT COUNT(*) AS n FROM ab_bills WHERE account = ${key.account} AND kind = ${key.kind}`
  })

  const countOf = <E, R>(found: Effect.Effect<Option.Option<typeof CountRow.Type>, E, R>) =>
    Effect.map(found, Option.match({ onNone: () => 0, onSome: (row) => row.n ?? 0 }))

  return {
    insert,
    insertContract,
    insertBehind,
    count: (key: typeof SyncKey.Type) => countOf(count(key)),
    countMatching: (query: typeof Listing.Type) => countOf(countMatching(query)),
    funding: (query: typeof Listing.Type) => Effect.map(fundingRows(query), (rows) => rows.map((row) => row.raw)),
    spot: (query: typeof Listing.Type) => Effect.map(spotRows(query), (rows) => rows.map((row) => row.raw)),
    contract: (query: typeof Listing.Type) => Effect.map(contractRows(query), (rows) => rows.map((row) => row.raw))
  } as const
})
