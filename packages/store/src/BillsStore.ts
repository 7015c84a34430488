/**
 * The store of bills over `@effect/sql`: one schema for SQLite and PostgreSQL, migrated by
 * `@effect/sql`'s `Migrator`. Bills are keyed by (account, kind, billId); each account and kind
 * has a sync state (the window covered so far, the cursor of a walk in progress) and a lease
 * that lets one sync at a time write it.
 *
 * @since 0.1.0
 */
import { FundingBillsPage, type FundingBill, SpotBills, type SpotBill } from "@account-bills/core"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { loader, migrationsTable, schemaVersion } from "./internal/migrations.js"
import { mapSqlFailure } from "./internal/sqlFailure.js"
import type { StoreAccount } from "./StoreAccount.js"
import {
  StoreAccountMismatch,
  type StoreDiskFull,
  StoreTooNew,
  type StoreUnavailable,
  SyncBusy
} from "./StoreErrors.js"

/**
 * The two accounts of the exchange whose bills a store keeps.
 *
 * @since 0.1.0
 * @category models
 */
export type BillKind = "funding" | "spot"

/**
 * The order the exchange lists bills in, as the sync saw it; reads from the store list in
 * the same order, so an export from the store is the export from the exchange.
 *
 * @since 0.1.0
 * @category models
 */
export type ListOrder = "newest-first" | "oldest-first"

/**
 * Where the sync of one account and kind stands.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncState {
  /** The window `[coveredFrom, coveredTo)` (epoch ms) that finished walks have read completely. */
  readonly covered: { readonly from: number; readonly to: number } | undefined
  /** The encoded cursor of a walk in progress, to resume from. */
  readonly cursor: string | undefined
  readonly order: ListOrder
}

/**
 * One page to commit: its bills and the walk's cursor after it, in one transaction.
 *
 * @since 0.1.0
 * @category models
 */
export interface PageCommit {
  readonly account: string
  readonly kind: BillKind
  /** The lease holder; the commit fails with `SyncBusy` if another sync has taken the lease. */
  readonly owner: string
  readonly leaseMillis: number
  readonly bills: ReadonlyArray<FundingBill | SpotBill>
  /** The encoded cursor after this page; ignored when `finished` is set. */
  readonly cursor: string
  /** Set on the walk's last page: the window it read, added to what is covered. */
  readonly finished: { readonly from: number; readonly to: number } | undefined
  readonly order: ListOrder | undefined
}

/**
 * Failures of the store's operations.
 *
 * @since 0.1.0
 * @category errors
 */
export type StoreFailure = StoreUnavailable | StoreDiskFull

/**
 * The filter and window of a read; bounds are inclusive epoch ms, as the store lists like an
 * exchange with inclusive bounds.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredBillsQuery {
  readonly coinId?: number | undefined
  readonly bizType?: string | undefined
  readonly start?: number | undefined
  readonly end?: number | undefined
}

/**
 * What the store offers.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsStoreShape {
  /** The store's path, or its URL without password, for messages. */
  readonly target: string
  /** Records the account, or fails if its label already belongs to another API key. */
  readonly register: (account: StoreAccount) => Effect.Effect<void, StoreFailure | StoreAccountMismatch>
  readonly state: (account: string, kind: BillKind) => Effect.Effect<SyncState, StoreFailure>
  /**
   * Takes the lease of (account, kind) for `leaseMillis` from now, or renews it for its holder;
   * returns when another holder's lease runs out instead, if it holds one.
   */
  readonly acquireLease: (
    account: string,
    kind: BillKind,
    owner: string,
    leaseMillis: number
  ) => Effect.Effect<{ readonly acquired: true } | { readonly acquired: false; readonly until: number }, StoreFailure>
  readonly releaseLease: (account: string, kind: BillKind, owner: string) => Effect.Effect<void, StoreFailure>
  /** Commits a page's bills (repeats dropped by key) with the walk's cursor; returns how many were new. */
  readonly commitPage: (page: PageCommit) => Effect.Effect<number, StoreFailure | SyncBusy>
  /** One page of funding bills as a funding response would list it (inclusive bounds). */
  readonly fundingPage: (
    account: string,
    query: StoredBillsQuery & { readonly pageIndex: number; readonly pageSize: number }
  ) => Effect.Effect<FundingBillsPage, StoreFailure>
  /** Up to `limit` spot bills as a spot response would list them (inclusive bounds). */
  readonly spotPage: (
    account: string,
    query: StoredBillsQuery & { readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<SpotBill>, StoreFailure>
  /** The accounts the store holds. */
  readonly accounts: Effect.Effect<ReadonlyArray<StoredAccount>, StoreFailure>
  /** How many bills of (account, kind) the store holds. */
  readonly count: (account: string, kind: BillKind) => Effect.Effect<number, StoreFailure>
}

/**
 * An account as recorded in the store.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredAccount {
  readonly id: string
  readonly fingerprint: string
  readonly label: string | undefined
}

interface StateRow {
  readonly covered_from: number | string | null
  readonly covered_to: number | string | null
  readonly cursor: string | null
  readonly server_order: string | null
  readonly lease_owner: string | null
  readonly lease_until: number | string | null
}

const nullableNumber = (value: number | string | bigint | null): number | undefined =>
  value === null ? undefined : Number(value)

/** Amounts as the exchange wrote them: the raw record's text, never a re-rendered number. */
const text = (raw: Readonly<Record<string, unknown>>, field: string): string | null => {
  const value = raw[field]
  return value === null || value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value)
}

/** PostgreSQL's advisory lock for migrating the store: one key for this schema, any number. */
const migrationLockKey = 7_264_105_220

const decodeFundingPage = Schema.decodeUnknown(FundingBillsPage)
const decodeSpotBills = Schema.decodeUnknown(SpotBills)

/**
 * Opens the store on the `SqlClient` in context: runs the migrations, and refuses a store
 * whose schema is newer than this code.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (target: string): Effect.Effect<BillsStoreShape, StoreFailure | StoreTooNew, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const mapped = mapSqlFailure(target)
    // Stores opened at once (two syncs started together) migrate one after the other: alone, the
    // Migrator's creation of its table races on PostgreSQL. One write transaction, with an advisory
    // lock on PostgreSQL, orders them; there the table is created first, as the Migrator would,
    // because the Migrator's probe for it fails when it is missing, and a failed statement would
    // abort the transaction.
    yield* mapped(
      sql.withTransaction(
        Effect.zipRight(
          sql.onDialectOrElse({
            pg: () =>
              Effect.zipRight(
                sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`,
                sql`CREATE TABLE IF NOT EXISTS ${sql(migrationsTable)} (
                  migration_id integer primary key,
                  created_at timestamp with time zone not null default now(),
                  name text not null
                )`
              ),
            orElse: () => Effect.void
          }),
          Effect.catchTag(Migrator.make({})({ loader, table: migrationsTable }), "MigrationError", (error) =>
            Effect.dieMessage(error.message)
          )
        )
      )
    )
    const [version] = yield* mapped(
      sql<{ readonly v: number | string | null }>`SELECT MAX(migration_id) AS v FROM ${sql(migrationsTable)}`
    )
    const found = nullableNumber(version?.v ?? null) ?? 0
    if (found > schemaVersion) return yield* new StoreTooNew({ target, version: found, supported: schemaVersion })

    const ensureState = (account: string, kind: BillKind) =>
      sql`INSERT INTO ab_sync (account, kind) VALUES (${account}, ${kind}) ON CONFLICT DO NOTHING`

    const readState = (account: string, kind: BillKind) =>
      Effect.map(
        sql<StateRow>`SELECT covered_from, covered_to, cursor, server_order, lease_owner, lease_until FROM ab_sync WHERE account = ${account} AND kind = ${kind}`,
        (rows) => rows[0]
      )

    const register = (account: StoreAccount) =>
      mapped(
        Effect.gen(function* () {
          yield* sql`INSERT INTO ab_accounts (account, fingerprint, label) VALUES (${account.id}, ${account.fingerprint}, ${account.label ?? null}) ON CONFLICT DO NOTHING`
          const rows = yield* sql<{
            readonly fingerprint: string
          }>`SELECT fingerprint FROM ab_accounts WHERE account = ${account.id}`
          if (rows[0]?.fingerprint !== account.fingerprint) {
            return yield* new StoreAccountMismatch({ label: account.id })
          }
        })
      )

    const state = (account: string, kind: BillKind) =>
      mapped(
        Effect.map(readState(account, kind), (row): SyncState => {
          const from = nullableNumber(row?.covered_from ?? null)
          const to = nullableNumber(row?.covered_to ?? null)
          return {
            covered: from === undefined || to === undefined ? undefined : { from, to },
            cursor: row?.cursor ?? undefined,
            order: row?.server_order === "oldest-first" ? "oldest-first" : "newest-first"
          }
        })
      )

    const acquireLease = (account: string, kind: BillKind, owner: string, leaseMillis: number) =>
      mapped(
        sql.withTransaction(
          Effect.gen(function* () {
            const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
            yield* ensureState(account, kind)
            const taken = yield* sql`UPDATE ab_sync SET lease_owner = ${owner}, lease_until = ${now + leaseMillis}
              WHERE account = ${account} AND kind = ${kind}
                AND (lease_owner IS NULL OR lease_owner = ${owner} OR lease_until < ${now})
              RETURNING account`
            if (taken.length > 0) return { acquired: true } as const
            const row = yield* readState(account, kind)
            return { acquired: false, until: nullableNumber(row?.lease_until ?? null) ?? now } as const
          })
        )
      )

    const releaseLease = (account: string, kind: BillKind, owner: string) =>
      mapped(
        Effect.asVoid(
          sql`UPDATE ab_sync SET lease_owner = NULL, lease_until = NULL WHERE account = ${account} AND kind = ${kind} AND lease_owner = ${owner}`
        )
      )

    const commitPage = (page: PageCommit): Effect.Effect<number, StoreFailure | SyncBusy> =>
      mapped(
        sql.withTransaction(
          Effect.gen(function* () {
            const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
            const row = yield* readState(page.account, page.kind)
            if (row === undefined || row.lease_owner !== page.owner) {
              return yield* new SyncBusy({
                account: page.account,
                kind: page.kind,
                until: nullableNumber(row?.lease_until ?? null) ?? now
              })
            }
            let inserted = 0
            if (page.bills.length > 0) {
              const rows = page.bills.map((bill) => ({
                account: page.account,
                kind: page.kind,
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
              }))
              const added =
                yield* sql`INSERT INTO ab_bills ${sql.insert(rows)} ON CONFLICT DO NOTHING RETURNING bill_id`
              inserted = added.length
            }
            const lease = now + page.leaseMillis
            const order = page.order ?? row.server_order
            if (page.finished === undefined) {
              yield* sql`UPDATE ab_sync SET cursor = ${page.cursor}, server_order = ${order}, lease_until = ${lease}
                WHERE account = ${page.account} AND kind = ${page.kind}`
            } else {
              const coveredFrom = nullableNumber(row.covered_from)
              const coveredTo = nullableNumber(row.covered_to)
              const from = coveredFrom === undefined ? page.finished.from : Math.min(coveredFrom, page.finished.from)
              const to = coveredTo === undefined ? page.finished.to : Math.max(coveredTo, page.finished.to)
              yield* sql`UPDATE ab_sync SET cursor = NULL, covered_from = ${from}, covered_to = ${to},
                server_order = ${order}, lease_until = ${lease}
                WHERE account = ${page.account} AND kind = ${page.kind}`
            }
            return inserted
          })
        )
      )

    const filters = (account: string, kind: BillKind, query: StoredBillsQuery) =>
      sql.and([
        sql`account = ${account}`,
        sql`kind = ${kind}`,
        ...(query.coinId === undefined ? [] : [sql`coin_id = ${query.coinId}`]),
        ...(query.bizType === undefined ? [] : [sql`biz_type = ${query.bizType}`]),
        ...(query.start === undefined ? [] : [sql`c_time >= ${query.start}`]),
        ...(query.end === undefined ? [] : [sql`c_time <= ${query.end}`])
      ])

    // Ids are digit strings: by length, then by text, is numeric order without leaving text.
    const ordering = (order: ListOrder) =>
      order === "newest-first"
        ? sql`ORDER BY c_time DESC, LENGTH(bill_id) DESC, bill_id DESC`
        : sql`ORDER BY c_time ASC, LENGTH(bill_id) ASC, bill_id ASC`

    const orderOf = (account: string, kind: BillKind) => Effect.map(state(account, kind), (current) => current.order)

    const raws = (rows: ReadonlyArray<{ readonly raw: string }>) => rows.map((row) => JSON.parse(row.raw) as unknown)

    const undecodable = (error: unknown) => Effect.die(new Error(`a stored bill does not decode: ${String(error)}`))

    const fundingPage = (
      account: string,
      query: StoredBillsQuery & { readonly pageIndex: number; readonly pageSize: number }
    ) =>
      Effect.gen(function* () {
        const order = yield* orderOf(account, "funding")
        const where = filters(account, "funding", query)
        const [counted] = yield* mapped(
          sql<{ readonly n: number | string }>`SELECT COUNT(*) AS n FROM ab_bills WHERE ${where}`
        )
        const total = Number(counted?.n ?? 0)
        const offset = (query.pageIndex - 1) * query.pageSize
        const rows = yield* mapped(
          sql<{
            readonly raw: string
          }>`SELECT raw FROM ab_bills WHERE ${where} ${ordering(order)} LIMIT ${query.pageSize} OFFSET ${offset}`
        )
        return yield* Effect.catchAll(
          decodeFundingPage({
            total,
            page: query.pageIndex,
            pageSize: query.pageSize,
            hasNextPage: offset + rows.length < total,
            items: raws(rows)
          }),
          undecodable
        )
      })

    const spotPage = (account: string, query: StoredBillsQuery & { readonly limit: number }) =>
      Effect.gen(function* () {
        const order = yield* orderOf(account, "spot")
        const rows = yield* mapped(
          sql<{
            readonly raw: string
          }>`SELECT raw FROM ab_bills WHERE ${filters(account, "spot", query)} ${ordering(order)} LIMIT ${query.limit}`
        )
        return yield* Effect.catchAll(decodeSpotBills(raws(rows)), undecodable)
      })

    const count = (account: string, kind: BillKind) =>
      mapped(
        Effect.map(
          sql<{
            readonly n: number | string
          }>`SELECT COUNT(*) AS n FROM ab_bills WHERE account = ${account} AND kind = ${kind}`,
          (rows) => Number(rows[0]?.n ?? 0)
        )
      )

    const accounts = mapped(
      Effect.map(
        sql<{
          readonly account: string
          readonly fingerprint: string
          readonly label: string | null
        }>`SELECT account, fingerprint, label FROM ab_accounts ORDER BY account`,
        (rows) => rows.map((row) => ({ id: row.account, fingerprint: row.fingerprint, label: row.label ?? undefined }))
      )
    )

    return BillsStore.of({
      accounts,
      target,
      register,
      state,
      acquireLease,
      releaseLease,
      commitPage,
      fundingPage,
      spotPage,
      count
    })
  })

/**
 * The store of bills.
 *
 * @since 0.1.0
 * @category tags
 */
export class BillsStore extends Context.Tag("@account-bills/store/BillsStore")<BillsStore, BillsStoreShape>() {
  /** Opens the store on the `SqlClient` in context; `target` names it in messages. */
  static readonly make = make
  /** The store over the `SqlClient` in context. */
  static readonly layer = (target: string): Layer.Layer<BillsStore, StoreFailure | StoreTooNew, SqlClient.SqlClient> =>
    Layer.effect(BillsStore, make(target))
}
