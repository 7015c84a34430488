/**
 * What a person's view of a store reads: per account kind and coin, the bills, their first and
 * last time and the balance the exchange reported last; a balance series downsampled by the
 * database; pages of bills by keyset (never `OFFSET`, so the millionth bill costs what the first
 * does); a bill's raw record as the exchange sent it. Every operation is a read, safe while a
 * sync writes the store.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { BillKind, StoreFailure } from "./BillsStore.js"
import * as ReaderQueries from "./internal/readerQueries.js"
import { mapSqlFailure } from "./internal/sqlFailure.js"

/**
 * The bills of one kind and coin an account holds.
 *
 * @since 0.3.0
 * @category models
 */
export interface CoinGroup {
  readonly kind: BillKind
  readonly coinName: string
  /** The exchange's id of the coin; the futures account names assets and has none. */
  readonly coinId: number | undefined
  readonly bills: number
  /** Epoch ms of the earliest and the latest bill. */
  readonly firstTime: number
  readonly lastTime: number
  /** The balance after the latest bill, the exchange's own decimal text (`afterAmount`, `balance`). */
  readonly lastBalance: string
  /** The latest bill, whose balance `lastBalance` is. */
  readonly lastBillId: string
}

/**
 * A series of reported balances to draw: one kind and coin, a closed window of epoch ms, and how
 * many points it may have at most.
 *
 * @since 0.3.0
 * @category models
 */
export interface SeriesQuery {
  readonly account: string
  readonly kind: BillKind
  readonly coinName: string
  readonly from: number
  readonly to: number
  readonly maxPoints: number
}

/**
 * A point of a series: epoch ms and the reported balance, as a number for drawing only.
 *
 * @since 0.3.0
 * @category models
 */
export type SeriesPoint = readonly [time: number, balance: number]

/**
 * A series: how many bills the window holds, whether they were downsampled (each bucket drawn
 * by its lowest and highest balance), and the points in time order.
 *
 * @since 0.3.0
 * @category models
 */
export interface Series {
  readonly bills: number
  readonly downsampled: boolean
  readonly points: ReadonlyArray<SeriesPoint>
}

/**
 * Which bills a page lists: the kinds (each its own index walk), a coin by name, a business
 * type, and a window of epoch ms, `to` exclusive as `bills export` reads `--to`.
 *
 * @since 0.3.0
 * @category models
 */
export interface StoredBillsFilter {
  readonly kinds: ReadonlyArray<BillKind>
  readonly coinName?: string | undefined
  readonly bizType?: string | undefined
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/**
 * Where a page starts: after the bill of this time, kind and id in the listing's order (newest
 * first; in one millisecond contract, spot, funding; then by id, numerically, down).
 *
 * @since 0.3.0
 * @category models
 */
export interface BillCursor {
  readonly time: number
  readonly kind: BillKind
  readonly billId: string
}

/**
 * A bill as a page lists it, its amounts the exchange's decimal text.
 *
 * @since 0.3.0
 * @category models
 */
export interface StoredBillRow {
  readonly kind: BillKind
  readonly billId: string
  readonly time: number
  readonly coinName: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
}

/**
 * What the reader offers.
 *
 * @since 0.3.0
 * @category models
 */
export interface StoreReaderShape {
  readonly overview: (account: string) => Effect.Effect<ReadonlyArray<CoinGroup>, StoreFailure>
  readonly series: (query: SeriesQuery) => Effect.Effect<Series, StoreFailure>
  /** Up to `limit` bills after `cursor` (from the newest when undefined). */
  readonly page: (
    account: string,
    filter: StoredBillsFilter,
    cursor: BillCursor | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<StoredBillRow>, StoreFailure>
  /** The bill's record as the exchange sent it (JSON text), if the store holds it. */
  readonly raw: (account: string, kind: BillKind, billId: string) => Effect.Effect<Option.Option<string>, StoreFailure>
}

/**
 * The reader of a store.
 *
 * @since 0.3.0
 * @category tags
 */
export class StoreReader extends Context.Tag("@account-bills/store/StoreReader")<StoreReader, StoreReaderShape>() {
  /** The reader over the `SqlClient` in context; `target` names the store in messages. */
  static readonly make = (target: string) =>
    Effect.map(ReaderQueries.make, (queries): StoreReaderShape => {
      const mapped = mapSqlFailure(target)
      return {
        overview: Effect.fn("StoreReader.overview")((account: string) => mapped(queries.overview(account))),
        series: Effect.fn("StoreReader.series")((query: SeriesQuery) => mapped(queries.series(query))),
        page: Effect.fn("StoreReader.page")(
          (account: string, filter: StoredBillsFilter, cursor: BillCursor | undefined, limit: number) =>
            mapped(queries.page(account, filter, cursor, limit))
        ),
        raw: Effect.fn("StoreReader.raw")((account: string, kind: BillKind, billId: string) =>
          mapped(queries.raw(account, kind, billId))
        )
      }
    })
}
