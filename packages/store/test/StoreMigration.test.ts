/**
 * A store written by the schema before the futures account (version 2) opens with this code:
 * migrated in place, every bill, cursor, window and lease of it kept, and the futures account
 * kept beside them from then on. The old store is made by the shipped migrations themselves and
 * filled the way version 2 wrote its rows, on SQLite and PostgreSQL.
 */
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import { migrations, migrationsTable } from "../src/internal/migrations.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import type * as StoreTarget from "../src/StoreTarget.js"
import { contractWire } from "./support/contractWire.js"
import { engines } from "./support/engines.js"
import { withRaw } from "./support/rawClient.js"

const now = Date.UTC(2025, 4, 1)
const account = StoreAccount.make(Redacted.make("migration-test-key"), "old")

const fundingRecord = {
  billId: "736825748291061726",
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: "250.10",
  afterAmount: "1000.00000001",
  fees: "0",
  cTime: "1700000000123",
  fillSize: null,
  fillValue: null
}
const spotRecord = {
  billId: "9007199254740993",
  coinId: 7,
  coinName: "DOGE",
  bizType: "trade_out",
  fillSize: "250.0",
  fillValue: "23.3725",
  deltaAmount: "-250.0",
  afterAmount: "0",
  fees: "0",
  cTime: "1700000000999"
}

/** A store as version 2 left it: its two migrations, an account, a bill of each kind, a walk in progress. */
const writeVersion2 = (target: StoreTarget.StoreTarget) =>
  withRaw(target, (sql) =>
    Effect.gen(function* () {
      const { "1_create": create, "2_aged_out": agedOut } = migrations
      yield* Migrator.make({})({
        loader: Migrator.fromRecord({ "1_create": create, "2_aged_out": agedOut }),
        table: migrationsTable
      }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      yield* sql`INSERT INTO ab_accounts (account, fingerprint, label) VALUES (${account.id}, ${account.fingerprint}, ${"old"})`
      const row = (kind: string, record: typeof fundingRecord | typeof spotRecord) => ({
        account: account.id,
        kind,
        bill_id: record.billId,
        c_time: Number(record.cTime),
        coin_id: record.coinId,
        coin_name: record.coinName,
        biz_type: record.bizType,
        delta_amount: record.deltaAmount,
        after_amount: record.afterAmount,
        fees: record.fees,
        fill_size: record.fillSize,
        fill_value: record.fillValue,
        raw: JSON.stringify(record)
      })
      yield* sql`INSERT INTO ab_bills ${sql.insert([row("funding", fundingRecord), row("spot", spotRecord)])}`
      yield* sql`INSERT INTO ab_sync (account, kind, covered_from, covered_to, cursor, server_order, aged_out)
        VALUES (${account.id}, 'funding', 0, 1700000001000, NULL, 'oldest-first', ${'[{"from":5,"to":9}]'})`
      yield* sql`INSERT INTO ab_sync (account, kind, covered_from, covered_to, cursor, server_order)
        VALUES (${account.id}, 'spot', 0, 1700000001000, ${'{"walk":"in progress"}'}, 'newest-first')`
    })
  )

for (const engine of engines) {
  describe(`store migration on ${engine.name}`, () => {
    it.effect(
      "a version-2 store opens migrated, with every bill, cursor and window it held, and takes contract bills",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const target = yield* engine.fresh
          yield* writeVersion2(target)
          yield* Effect.gen(function* () {
            const store = yield* BillsStore
            expect(yield* store.accounts).toEqual([{ id: account.id, fingerprint: account.fingerprint, label: "old" }])
            const funding = yield* store.fundingPage(account.id, { pageIndex: 1, pageSize: 10 })
            expect(funding.items).toEqual([Schema.decodeUnknownSync(FundingBillFromWire)(fundingRecord)])
            expect(funding.items[0]?.raw).toEqual(fundingRecord)
            const spot = yield* store.spotPage(account.id, { limit: 10 })
            expect(spot).toEqual([Schema.decodeUnknownSync(SpotBillFromWire)(spotRecord)])
            expect(yield* store.state(account.id, "funding")).toEqual({
              covered: { from: 0, to: 1700000001000 },
              agedOut: [{ from: 5, to: 9 }],
              cursor: undefined,
              order: "oldest-first"
            })
            expect(yield* store.state(account.id, "spot")).toMatchObject({ cursor: '{"walk":"in progress"}' })
            // The futures account starts empty and unfinished, and keeps its bills beside the others.
            expect(yield* store.coverage(account.id, "contract")).toMatchObject({ coveredTo: null, bills: 0 })
            yield* store.acquireLease(account.id, "contract", "A", 30_000)
            const bill = contractWire("736825748291061727", 1700000000500)
            expect(
              yield* store.commitPage({
                account: account.id,
                kind: "contract",
                owner: "A",
                leaseMillis: 30_000,
                bills: [bill],
                cursor: "{}",
                finished: { from: 0, to: 1700000001000 },
                order: undefined
              })
            ).toBe(1)
            expect(yield* store.count(account.id, "contract")).toBe(1)
            expect(yield* store.count(account.id, "spot")).toBe(1)
            expect(yield* store.count(account.id, "funding")).toBe(1)
          }).pipe(Effect.provide(StoreLayer.forTarget(target, { create: false })))
        })
    )
  })
}
