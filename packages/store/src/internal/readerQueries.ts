/**
 * The queries a person's view of the store runs: aggregates per kind and coin, a balance series
 * downsampled in the database, and pages of bills by keyset. Every one is a read; the same SQL
 * runs on SQLite and PostgreSQL.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type {
  BillCursor,
  CoinGroup,
  Series,
  SeriesPoint,
  SeriesQuery,
  StoredBillRow,
  StoredBillsFilter
} from "../StoreReader.js"
import { DbInt, Kind } from "./storeRows.js"

/** What a query fails with before the store maps it. */
type Failure = SqlError | ParseResult.ParseError

/** A group of bills of one kind and coin: how many, the first and last time. */
const GroupRow = Schema.Struct({
  kind: Kind,
  coin_name: Schema.String,
  n: DbInt,
  first_time: DbInt,
  last_time: DbInt
})

/** The balance the exchange reported after the latest bill of a group, as text. */
const BalanceRow = Schema.Struct({ after_amount: Schema.String, bill_id: Schema.String, coin_id: Schema.NullOr(DbInt) })

/** A bucket of a downsampled series. */
const BucketRow = Schema.Struct({
  first_time: DbInt,
  n: DbInt,
  low: Schema.Number,
  high: Schema.Number
})

/** One bill of a raw series. */
const PointRow = Schema.Struct({ c_time: DbInt, value: Schema.Number })

/** One bill as the view lists it. */
const ListedRow = Schema.Struct({
  bill_id: Schema.String,
  c_time: DbInt,
  coin_name: Schema.String,
  biz_type: Schema.String,
  delta_amount: Schema.String,
  after_amount: Schema.String,
  fees: Schema.String
})

const RawRow = Schema.Struct({ raw: Schema.String })

/** The listing's order across kinds, newest first: within a millisecond contract, spot, funding. */
const kindRank: Readonly<Record<typeof Kind.Type, number>> = { funding: 0, spot: 1, contract: 2 }

/** The queries over the `SqlClient` in context. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const table = (kind: typeof Kind.Type) => (kind === "contract" ? sql`ab_contract_bills` : sql`ab_bills`)
  const ofKind = (kind: typeof Kind.Type) => (kind === "contract" ? [] : [sql`kind = ${kind}`])

  const groups = (account: string) =>
    Effect.map(
      Effect.all([
        SqlSchema.findAll({
          Request: Schema.String,
          Result: GroupRow,
          execute: (id) =>
            sql`SELECT kind, coin_name, COUNT(*) AS n, MIN(c_time) AS first_time, MAX(c_time) AS last_time
              FROM ab_bills WHERE account = ${id} GROUP BY kind, coin_name`
        })(account),
        SqlSchema.findAll({
          Request: Schema.String,
          Result: GroupRow,
          execute: (id) =>
            sql`SELECT 'contract' AS kind, coin_name, COUNT(*) AS n, MIN(c_time) AS first_time, MAX(c_time) AS last_time
              FROM ab_contract_bills WHERE account = ${id} GROUP BY coin_name`
        })(account)
      ]),
      ([bills, contract]) => [...bills, ...contract]
    )

  const lastBalance = SqlSchema.findOne({
    Request: Schema.Struct({ account: Schema.String, kind: Kind, coinName: Schema.String }),
    Result: BalanceRow,
    execute: (key) =>
      sql`SELECT after_amount, bill_id, ${key.kind === "contract" ? sql`NULL` : sql`coin_id`} AS coin_id FROM ${table(key.kind)}
        WHERE ${sql.and([sql`account = ${key.account}`, ...ofKind(key.kind), sql`coin_name = ${key.coinName}`])}
        ORDER BY c_time DESC, LENGTH(bill_id) DESC, bill_id DESC LIMIT 1`
  })

  /** The groups of an account, each with its last reported balance. */
  const overview = (account: string): Effect.Effect<ReadonlyArray<CoinGroup>, Failure> =>
    Effect.flatMap(groups(account), (found) =>
      Effect.forEach(found, (group) =>
        Effect.map(lastBalance({ account, kind: group.kind, coinName: group.coin_name }), (last) => ({
          kind: group.kind,
          coinName: group.coin_name,
          coinId: Option.match(last, { onNone: () => undefined, onSome: (row) => row.coin_id ?? undefined }),
          bills: group.n,
          firstTime: group.first_time,
          lastTime: group.last_time,
          lastBalance: Option.match(last, { onNone: () => "", onSome: (row) => row.after_amount }),
          lastBillId: Option.match(last, { onNone: () => "", onSome: (row) => row.bill_id })
        }))
      )
    )

  const seriesWhere = (query: SeriesQuery) =>
    sql.and([
      sql`account = ${query.account}`,
      ...ofKind(query.kind),
      sql`coin_name = ${query.coinName}`,
      sql`after_amount <> ''`,
      sql`c_time >= ${query.from}`,
      sql`c_time <= ${query.to}`
    ])

  // DOUBLE PRECISION: SQLite reads any type name with DOUB as a real; PostgreSQL's REAL is 4 bytes.
  const rawSeries = SqlSchema.findAll({
    Request: Schema.Any,
    Result: PointRow,
    execute: (query: SeriesQuery) =>
      sql`SELECT c_time, CAST(after_amount AS DOUBLE PRECISION) AS value FROM ${table(query.kind)}
        WHERE ${seriesWhere(query)} ORDER BY c_time ASC, LENGTH(bill_id) ASC, bill_id ASC`
  })

  const bucketed = SqlSchema.findAll({
    Request: Schema.Any,
    Result: BucketRow,
    execute: (query: SeriesQuery & { readonly width: number }) =>
      sql`SELECT MIN(c_time) AS first_time, COUNT(*) AS n,
          MIN(CAST(after_amount AS DOUBLE PRECISION)) AS low, MAX(CAST(after_amount AS DOUBLE PRECISION)) AS high
        FROM ${table(query.kind)} WHERE ${seriesWhere(query)}
        GROUP BY CAST((c_time - ${query.from}) / ${query.width} AS BIGINT) ORDER BY first_time`
  })

  /**
   * The series of reported balances: every bill when there are at most `maxPoints`, else
   * `maxPoints / 2` buckets of equal time, each drawn by its lowest and its highest balance, so
   * no spike is lost to the downsampling.
   */
  const series = (query: SeriesQuery): Effect.Effect<Series, Failure> =>
    Effect.gen(function* () {
      // The buckets first: their counts say whether the window holds few enough bills to send
      // every one, which then costs a second, small read.
      const buckets = Math.max(1, Math.floor(query.maxPoints / 2))
      const width = Math.max(1, Math.ceil((query.to - query.from + 1) / buckets))
      const rows = yield* bucketed({ ...query, width })
      const bills = rows.reduce((sum, row) => sum + row.n, 0)
      if (bills <= query.maxPoints) {
        const all = yield* rawSeries(query)
        return { bills, downsampled: false, points: all.map((row) => [row.c_time, row.value] as const) }
      }
      const points: Array<SeriesPoint> = []
      for (const row of rows) {
        points.push([row.first_time, row.low])
        if (row.n > 1 && row.high !== row.low) points.push([row.first_time, row.high])
      }
      return { bills, downsampled: true, points }
    })

  /**
   * After `cursor` in the listing's order (time, kind, id; newest first), for a query of `kind`
   * alone: the kind is fixed, so the comparison of kinds is decided here.
   */
  const after = (kind: typeof Kind.Type, cursor: BillCursor | undefined) => {
    if (cursor === undefined) return []
    const rank = kindRank[kind]
    const cursorRank = kindRank[cursor.kind]
    if (rank < cursorRank) return [sql`c_time <= ${cursor.time}`]
    if (rank > cursorRank) return [sql`c_time < ${cursor.time}`]
    const length = cursor.billId.length
    // The first bound alone is a range of the time index; the second decides within its millisecond.
    return [
      sql`c_time <= ${cursor.time}`,
      sql`(c_time < ${cursor.time} OR LENGTH(bill_id) < ${length} OR (LENGTH(bill_id) = ${length} AND bill_id < ${cursor.billId}))`
    ]
  }

  const listKind = (
    account: string,
    kind: typeof Kind.Type,
    filter: StoredBillsFilter,
    cursor: BillCursor | undefined,
    limit: number
  ) =>
    SqlSchema.findAll({
      Request: Schema.Void,
      Result: ListedRow,
      execute: () =>
        sql`SELECT bill_id, c_time, coin_name, biz_type, delta_amount, after_amount, fees FROM ${table(kind)}
          WHERE ${sql.and([
            sql`account = ${account}`,
            ...ofKind(kind),
            ...(filter.coinName === undefined ? [] : [sql`coin_name = ${filter.coinName}`]),
            ...(filter.bizType === undefined ? [] : [sql`biz_type = ${filter.bizType}`]),
            ...(filter.from === undefined ? [] : [sql`c_time >= ${filter.from}`]),
            ...(filter.to === undefined ? [] : [sql`c_time < ${filter.to}`]),
            ...after(kind, cursor)
          ])}
          ORDER BY c_time DESC, LENGTH(bill_id) DESC, bill_id DESC LIMIT ${limit}`
    })(undefined).pipe(
      Effect.map((rows) =>
        rows.map(
          (row): StoredBillRow => ({
            kind,
            billId: row.bill_id,
            time: row.c_time,
            coinName: row.coin_name,
            bizType: row.biz_type,
            deltaAmount: row.delta_amount,
            afterAmount: row.after_amount,
            fees: row.fees
          })
        )
      )
    )

  /** Newest first across the kinds: each kind's next `limit` by keyset, merged, the first `limit` kept. */
  const page = (
    account: string,
    filter: StoredBillsFilter,
    cursor: BillCursor | undefined,
    limit: number
  ): Effect.Effect<ReadonlyArray<StoredBillRow>, Failure> =>
    Effect.map(
      Effect.forEach(filter.kinds, (kind) => listKind(account, kind, filter, cursor, limit), { concurrency: 1 }),
      (lists) =>
        lists
          .flat()
          .sort(
            (a, b) =>
              b.time - a.time ||
              kindRank[b.kind] - kindRank[a.kind] ||
              b.billId.length - a.billId.length ||
              (a.billId < b.billId ? 1 : a.billId > b.billId ? -1 : 0)
          )
          .slice(0, limit)
    )

  const raw = (account: string, kind: typeof Kind.Type, billId: string) =>
    Effect.map(
      SqlSchema.findOne({
        Request: Schema.Void,
        Result: RawRow,
        execute: () =>
          sql`SELECT raw FROM ${table(kind)} WHERE ${sql.and([sql`account = ${account}`, ...ofKind(kind), sql`bill_id = ${billId}`])}`
      })(undefined),
      Option.map((row) => row.raw)
    )

  return { overview, series, page, raw } as const
})
