/**
 * The store's schema, as `@effect/sql` migrations. The same SQL runs on SQLite and PostgreSQL:
 * times are BIGINT epoch milliseconds, amounts and ids TEXT exactly as the exchange sent them.
 * Append new migrations; never edit one that has shipped. A fleet upgrades one runner at a time,
 * so a migration leaves a store that the last release can still write for the seconds until it
 * sees the new version and stops (docs/many-accounts.md, "How to upgrade a fleet"): add tables,
 * nullable columns and indexes; never drop, rename or tighten what the last release writes.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CountRow } from "./storeRows.js"

/** The table `@effect/sql`'s Migrator records applied migrations in. */
export const migrationsTable = "account_bills_migrations"

const create = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE ab_accounts (
    account TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    label TEXT
  )`
  yield* sql`CREATE TABLE ab_bills (
    account TEXT NOT NULL,
    kind TEXT NOT NULL,
    bill_id TEXT NOT NULL,
    c_time BIGINT NOT NULL,
    coin_id BIGINT NOT NULL,
    coin_name TEXT NOT NULL,
    biz_type TEXT NOT NULL,
    delta_amount TEXT NOT NULL,
    after_amount TEXT NOT NULL,
    fees TEXT NOT NULL,
    fill_size TEXT,
    fill_value TEXT,
    raw TEXT NOT NULL,
    PRIMARY KEY (account, kind, bill_id)
  )`
  yield* sql`CREATE INDEX ab_bills_time ON ab_bills (account, kind, c_time)`
  yield* sql`CREATE TABLE ab_sync (
    account TEXT NOT NULL,
    kind TEXT NOT NULL,
    covered_from BIGINT,
    covered_to BIGINT,
    cursor TEXT,
    server_order TEXT,
    lease_owner TEXT,
    lease_until BIGINT,
    PRIMARY KEY (account, kind)
  )`
})

/**
 * The windows a sync found aged out: the exchange's horizon had passed them before any walk
 * read them, so the covered window is no longer whole.
 */
const agedOut = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE ab_sync ADD COLUMN aged_out TEXT`
})

/**
 * The futures account's bills. They have no coin id (a coin name, and a contract symbol on
 * most), so they get a table of their own rather than a nullable column in `ab_bills`: SQLite
 * cannot relax a NOT NULL without copying the whole table, and a store of millions of bills
 * migrates here by adding an empty table. `ab_sync` takes the kind `contract` as it is.
 */
const contract = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE ab_contract_bills (
    account TEXT NOT NULL,
    bill_id TEXT NOT NULL,
    c_time BIGINT NOT NULL,
    coin_name TEXT NOT NULL,
    symbol TEXT,
    biz_type TEXT NOT NULL,
    delta_amount TEXT NOT NULL,
    after_amount TEXT NOT NULL,
    fees TEXT NOT NULL,
    transfer_reason TEXT,
    raw TEXT NOT NULL,
    PRIMARY KEY (account, bill_id)
  )`
  yield* sql`CREATE INDEX ab_contract_bills_time ON ab_contract_bills (account, c_time)`
})

/**
 * What a person's view reads per kind and coin (`StoreReader`): the bills of each, their first and
 * last time, and the balance series. Keyed by coin and time and carrying the reported balance, the
 * index answers those from itself, without reading the bills' rows (a million bills: the
 * overview's GROUP BY went from 2 s to a scan of the index; a year's series from 3 s).
 */
const coinIndex = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX ab_bills_coin ON ab_bills (account, kind, coin_name, c_time, after_amount)`
  yield* sql`CREATE INDEX ab_contract_bills_coin ON ab_contract_bills (account, coin_name, c_time, after_amount)`
})

/** Every migration, by id. */
export const migrations = {
  "1_create": create,
  "2_aged_out": agedOut,
  "3_contract": contract,
  "4_coin_index": coinIndex
} as const

/** The schema version this code writes: the id of the last migration. */
export const schemaVersion = 4

/** The loader the Migrator runs. */
export const loader = Migrator.fromRecord(migrations)

/** The schema version of the store on `sql`: the last migration it has run (0 for none). */
export const versionOf = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Void,
    Result: CountRow,
    execute: () => sql`SELECT MAX(migration_id) AS n FROM ${sql(migrationsTable)}`
  })(undefined).pipe(Effect.map(Option.match({ onNone: () => 0, onSome: (row) => row.n ?? 0 })))
