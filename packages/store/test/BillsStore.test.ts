/**
 * The store's own operations, the same cases on SQLite and PostgreSQL: commits and reads, what
 * the store says it holds, the lease and its fence, and opening an existing store only.
 */
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import { BillsStore, type PageCommit } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import { contractRecord, contractWire } from "./support/contractWire.js"
import { engines } from "./support/engines.js"

const now = Date.UTC(2025, 4, 1)
const account = StoreAccount.make(Redacted.make("store-test-key"), "main")

/** A record as the exchange sends it: ids past 2^53, amounts as text, an outflow, a null fill. */
const wire = (billId: string, cTime: number, extra: Record<string, unknown> = {}) => ({
  billId,
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: "-250.0",
  afterAmount: "1000.00000001",
  fees: "0",
  cTime: String(cTime),
  ...extra
})

const funding = (billId: string, cTime: number) => Schema.decodeUnknownSync(FundingBillFromWire)(wire(billId, cTime))
const spot = (billId: string, cTime: number, extra: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(SpotBillFromWire)(wire(billId, cTime, extra))

const page = (overrides: Partial<PageCommit> & Pick<PageCommit, "owner">): PageCommit => ({
  account: account.id,
  kind: "spot",
  leaseMillis: 1_000,
  bills: [],
  cursor: "{}",
  finished: undefined,
  order: undefined,
  ...overrides
})

/** The state of a kind no walk has finished or left a cursor for. */
const unsynced = { covered: undefined, agedOut: [], cursor: undefined, order: "newest-first" }

for (const engine of engines) {
  const fresh = Layer.unwrapEffect(Effect.map(engine.fresh, (target) => StoreLayer.forTarget(target)))

  describe(`BillsStore on ${engine.name}`, () => {
    it.effect("a committed page reads back as the exchange listed it; repeats are dropped by key", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        yield* store.acquireLease(account.id, "spot", "A", 30_000)
        const bills = [
          spot("736825748291061726", 3_000, { fillSize: "1.5", fillValue: null }),
          spot("9", 2_000),
          spot("10", 2_000),
          spot("11", 1_000, { bizType: "withdraw" })
        ]
        expect(yield* store.commitPage(page({ owner: "A", bills, order: "newest-first" }))).toBe(4)
        expect(yield* store.commitPage(page({ owner: "A", bills: bills.slice(0, 2) }))).toBe(0)
        expect(yield* store.count(account.id, "spot")).toBe(4)

        const listed = yield* store.spotPage(account.id, { limit: 10 })
        // Newest first, and within one millisecond the larger id first (numeric, not text, order).
        expect(listed.map((bill) => bill.billId)).toEqual(["736825748291061726", "10", "9", "11"])
        expect(listed.map((bill) => bill.raw)).toEqual([
          wire("736825748291061726", 3_000, { fillSize: "1.5", fillValue: null }),
          wire("10", 2_000),
          wire("9", 2_000),
          wire("11", 1_000, { bizType: "withdraw" })
        ])
        // Inclusive bounds, and the filters.
        const window = yield* store.spotPage(account.id, { start: 1_000, end: 2_000, limit: 10 })
        expect(window.map((bill) => bill.billId)).toEqual(["10", "9", "11"])
        const withdrawals = yield* store.spotPage(account.id, { bizType: "withdraw", limit: 10 })
        expect(withdrawals.map((bill) => bill.billId)).toEqual(["11"])
      }).pipe(Effect.provide(fresh))
    )

    it.effect("contract bills keep to their own kind, read back as sent, by window, asset, symbol and type", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        yield* store.acquireLease(account.id, "contract", "A", 30_000)
        const bills = [
          contractWire("736825748291061726", 3_000),
          contractWire("9", 2_000, { incomeType: "position_funding", transferReason: null }),
          contractWire("10", 2_000, { asset: "BTC", symbol: "cmt_ethusdt" }),
          contractWire("11", 1_000)
        ]
        // A spot bill with an id a contract bill has is another bill: kinds never meet.
        yield* store.acquireLease(account.id, "spot", "A", 30_000)
        expect(yield* store.commitPage(page({ owner: "A", bills: [spot("9", 2_000)] }))).toBe(1)
        expect(yield* store.commitPage(page({ owner: "A", kind: "contract", bills, order: "newest-first" }))).toBe(4)
        expect(yield* store.commitPage(page({ owner: "A", kind: "contract", bills: bills.slice(1, 3) }))).toBe(0)
        expect(yield* store.count(account.id, "contract")).toBe(4)
        expect(yield* store.count(account.id, "spot")).toBe(1)

        const listed = yield* store.contractPage(account.id, { limit: 10 })
        expect(listed.map((bill) => bill.billId)).toEqual(["736825748291061726", "10", "9", "11"])
        expect(listed).toEqual([bills[0], bills[2], bills[1], bills[3]])
        expect(listed[0]?.raw).toEqual(contractRecord("736825748291061726", 3_000))
        const window = yield* store.contractPage(account.id, { start: 1_000, end: 2_000, limit: 2 })
        expect(window.map((bill) => bill.billId)).toEqual(["10", "9"])
        expect((yield* store.contractPage(account.id, { coinName: "BTC", limit: 10 })).map((b) => b.billId)).toEqual([
          "10"
        ])
        expect(
          (yield* store.contractPage(account.id, { symbol: "cmt_ethusdt", limit: 10 })).map((b) => b.billId)
        ).toEqual(["10"])
        expect(
          (yield* store.contractPage(account.id, { bizType: "position_funding", limit: 10 })).map((b) => b.billId)
        ).toEqual(["9"])
        expect(yield* store.coverage(account.id, "contract")).toMatchObject({ coveredTo: null, bills: 4 })
      }).pipe(Effect.provide(fresh))
    )

    it.effect("funding pages count what matches and page through it", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        yield* store.acquireLease(account.id, "funding", "A", 30_000)
        const bills = Array.from({ length: 5 }, (_, i) => funding(String(100 + i), 1_000 + i))
        yield* store.commitPage(page({ owner: "A", kind: "funding", bills, order: "oldest-first" }))
        const second = yield* store.fundingPage(account.id, { pageIndex: 2, pageSize: 2 })
        expect(second.total).toBe(5)
        expect(second.hasNextPage).toBe(true)
        expect(second.items.map((bill) => bill.billId)).toEqual(["102", "103"])
        const last = yield* store.fundingPage(account.id, { pageIndex: 3, pageSize: 2 })
        expect(last.hasNextPage).toBe(false)
        expect(last.items.map((bill) => bill.billId)).toEqual(["104"])
      }).pipe(Effect.provide(fresh))
    )

    it.effect("the store says what it holds completely, and when a sync of it is unfinished", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        const empty = {
          account: account.id,
          kind: "spot",
          coveredFrom: null,
          coveredTo: null,
          unfinished: true,
          agedOut: []
        }
        expect(yield* store.coverage(account.id, "spot")).toEqual({ ...empty, bills: 0 })
        yield* store.acquireLease(account.id, "spot", "A", 30_000)
        // A first walk stopped mid-way: some bills, no window held completely.
        yield* store.commitPage(page({ owner: "A", bills: [spot("1", 5_000)], cursor: "mid-way" }))
        expect(yield* store.coverage(account.id, "spot")).toEqual({ ...empty, bills: 1 })
        yield* store.commitPage(page({ owner: "A", bills: [spot("2", 4_000)], finished: { from: 1_000, to: 9_000 } }))
        expect(yield* store.coverage(account.id, "spot")).toEqual({
          ...empty,
          coveredFrom: 1_000,
          coveredTo: 9_000,
          unfinished: false,
          bills: 2
        })
        // A later walk interrupted: the window held completely stays, the sync is unfinished.
        yield* store.commitPage(page({ owner: "A", bills: [spot("3", 9_500)], cursor: "later" }))
        expect(yield* store.coverage(account.id, "spot")).toEqual({
          ...empty,
          coveredFrom: 1_000,
          coveredTo: 9_000,
          unfinished: true,
          bills: 3
        })
        // Finished, it widens the window; the other kind is untouched.
        yield* store.commitPage(page({ owner: "A", finished: { from: 8_000, to: 12_000 } }))
        expect(yield* store.coverage(account.id, "spot")).toMatchObject({
          coveredFrom: 1_000,
          coveredTo: 12_000,
          unfinished: false
        })
        expect(yield* store.coverage(account.id, "funding")).toMatchObject({ coveredTo: null, unfinished: true })
      }).pipe(Effect.provide(fresh))
    )

    it.effect("a lease is one holder's until it runs out; another's release does not free it", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        expect(yield* store.acquireLease(account.id, "spot", "A", 1_000)).toEqual({ acquired: true, state: unsynced })
        expect(yield* store.acquireLease(account.id, "spot", "B", 1_000)).toEqual({
          acquired: false,
          until: now + 1_000
        })
        yield* store.releaseLease(account.id, "spot", "B")
        expect(yield* store.acquireLease(account.id, "spot", "B", 1_000)).toEqual({
          acquired: false,
          until: now + 1_000
        })
        // The other kind has a lease of its own.
        expect(yield* store.acquireLease(account.id, "funding", "B", 1_000)).toEqual({
          acquired: true,
          state: unsynced
        })
        yield* TestClock.adjust("1001 millis")
        expect(yield* store.acquireLease(account.id, "spot", "B", 1_000)).toEqual({ acquired: true, state: unsynced })
      }).pipe(Effect.provide(fresh))
    )

    it.effect("the lease comes with the state; a last page lets it go; a renewal takes back no lease let go", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        expect(yield* store.acquireLease(account.id, "spot", "A", 30_000)).toEqual({ acquired: true, state: unsynced })
        expect(yield* store.renewLease(account.id, "spot", "A", 30_000)).toBe(true)
        expect(yield* store.renewLease(account.id, "spot", "B", 30_000)).toBe(false)
        yield* store.commitPage(page({ owner: "A", cursor: '{"walk":1}', order: "oldest-first" }))
        // A page that does not say so keeps the lease: B still waits for it.
        expect(yield* store.acquireLease(account.id, "spot", "B", 30_000)).toEqual({
          acquired: false,
          until: now + 1_000
        })
        yield* store.commitPage(page({ owner: "A", finished: { from: 1_000, to: 5_000 }, release: true }))
        // Let go with the last page: A's renewal does not take it back, and B takes it at once,
        // long before it would have run out, with the state A left.
        expect(yield* store.renewLease(account.id, "spot", "A", 30_000)).toBe(false)
        expect(yield* store.acquireLease(account.id, "spot", "B", 30_000)).toEqual({
          acquired: true,
          state: { covered: { from: 1_000, to: 5_000 }, agedOut: [], cursor: undefined, order: "oldest-first" }
        })
        const late = yield* Effect.flip(store.commitPage(page({ owner: "A", cursor: '{"walk":2}' })))
        expect(late._tag).toBe("SyncBusy")
      }).pipe(Effect.provide(fresh))
    )

    it.effect(
      "the fence: A's lease runs out, B takes it, and A's next commit fails with SyncBusy, leaving B's cursor, window and bills",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const store = yield* BillsStore
          yield* store.register(account)
          yield* store.acquireLease(account.id, "spot", "A", 1_000)
          yield* store.commitPage(page({ owner: "A", bills: [spot("1", 1_000)], cursor: "A-1" }))
          // A stalls past its lease (a pause, a lost connection); B takes over and commits.
          yield* TestClock.adjust("2 seconds")
          expect(yield* store.acquireLease(account.id, "spot", "B", 5_000)).toEqual({
            acquired: true,
            state: { ...unsynced, cursor: "A-1" }
          })
          yield* store.commitPage(page({ owner: "B", bills: [spot("2", 2_000)], finished: { from: 0, to: 3_000 } }))
          yield* store.commitPage(page({ owner: "B", bills: [spot("3", 4_000)], cursor: "B-2", leaseMillis: 5_000 }))
          const before = yield* store.state(account.id, "spot")

          const busy = yield* Effect.flip(
            store.commitPage(
              page({ owner: "A", bills: [spot("4", 2_500)], cursor: "A-2", finished: { from: 0, to: 99_000 } })
            )
          )
          expect(busy._tag).toBe("SyncBusy")
          expect(busy).toMatchObject({ account: account.id, kind: "spot", until: now + 2_000 + 5_000 })
          const busyUnfinished = yield* Effect.flip(
            store.commitPage(page({ owner: "A", bills: [spot("5", 2_600)], cursor: "A-2" }))
          )
          expect(busyUnfinished._tag).toBe("SyncBusy")
          expect(yield* store.state(account.id, "spot")).toEqual(before)
          expect(before).toMatchObject({ cursor: "B-2", covered: { from: 0, to: 3_000 } })
          // A's bills went with its refused commit.
          expect(yield* store.count(account.id, "spot")).toBe(3)
          // B goes on as if A had never come back.
          expect(yield* store.commitPage(page({ owner: "B", bills: [spot("6", 5_000)], cursor: "B-3" }))).toBe(1)
        }).pipe(Effect.provide(fresh))
    )

    it.effect("a holder whose lease ran out commits while nobody took the lease, and not once another did", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        yield* store.acquireLease(account.id, "spot", "A", 1_000)
        yield* TestClock.adjust("2 seconds")
        // Stalled past its lease, not displaced: its commit is the only write, and renews the lease.
        expect(yield* store.commitPage(page({ owner: "A", bills: [spot("1", 1_000)] }))).toBe(1)
        yield* TestClock.adjust("2 seconds")
        expect(yield* store.acquireLease(account.id, "spot", "B", 1_000)).toEqual({
          acquired: true,
          state: { ...unsynced, cursor: "{}" }
        })
        const busy = yield* Effect.flip(store.commitPage(page({ owner: "A", bills: [spot("2", 2_000)] })))
        expect(busy._tag).toBe("SyncBusy")
        expect(yield* store.count(account.id, "spot")).toBe(1)
        expect(yield* store.commitPage(page({ owner: "B", bills: [spot("2", 2_000)] }))).toBe(1)
      }).pipe(Effect.provide(fresh))
    )

    it.effect(
      "a read opens an existing store only: where there is none it fails with StoreNotFound and creates nothing",
      () =>
        Effect.gen(function* () {
          const target = yield* engine.fresh
          const opened = (create: boolean) =>
            Effect.provide(
              Effect.map(BillsStore, (store) => store.target),
              StoreLayer.forTarget(target, { create })
            )
          const missing = yield* Effect.flip(opened(false))
          expect(missing._tag).toBe("StoreNotFound")
          expect(missing.message).toBe(
            target._tag === "Sqlite"
              ? `no store at ${target.display}: the file does not exist; check the path, or run a sync to create one there`
              : `no store at ${target.display}: it holds no account-bills store; check the path, or run a sync to create one there`
          )
          if (target._tag === "Sqlite") expect(fs.readdirSync(path.dirname(target.path))).toEqual([])
          // Still none after the failed read: a sync creates it, and then reads open it.
          expect((yield* Effect.flip(opened(false)))._tag).toBe("StoreNotFound")
          expect(yield* opened(true)).toBe(target.display)
          expect(yield* opened(false)).toBe(target.display)
        })
    )
  })
}
