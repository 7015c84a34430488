/**
 * The futures account synced as the third kind, through the client's own contract walk: here its
 * source is a store holding the exchange's records (the store answers the contract operation as
 * the exchange does: inclusive bounds, its order, `limit`), so the walk's 100-day slices, its
 * narrowing inside a slice and its ties inside one millisecond run against a history of 250 days
 * with groups of bills sharing a millisecond. Every bill kept once, field for field; a sync stopped
 * after some pages resumes from its cursor and asks nothing twice; the next sync finds nothing new
 * in one request.
 */
import { BillsApi, type ContractBill, ContractBillFromWire } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreBillsApi from "../src/StoreBillsApi.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"

const day = 24 * 60 * 60 * 1000
const historyStart = Date.UTC(2024, 0, 1)
const now = historyStart + 260 * day
const account = StoreAccount.make(Redacted.make("contract-sync-key"), "futures")

/** 1,234 records over 250 days, every 40th a group of 5 in one millisecond; ids past 2^53. */
const records = (() => {
  const out: Array<Record<string, unknown>> = []
  let time = historyStart
  for (let i = 0; out.length < 1_234; i++) {
    time += 1 + ((i * 7_919) % Math.floor((250 * day) / 1_234))
    const group = i % 40 === 0 ? 5 : 1
    for (let j = 0; j < group && out.length < 1_234; j++) {
      out.push({
        billId: String(736825748291061726n + BigInt(out.length)),
        asset: out.length % 3 === 0 ? "BTC" : "USDT",
        symbol: out.length % 5 === 0 ? null : "cmt_btcusdt",
        income: `${out.length % 2 === 0 ? "-" : ""}${out.length}.10`,
        incomeType: out.length % 4 === 0 ? "position_funding" : "position_close_long",
        balance: `${1_000 + out.length}.000`,
        fillFee: "0",
        time,
        transferReason: null
      })
    }
  }
  return out
})()

const bills: ReadonlyArray<ContractBill> = records.map((record) =>
  Schema.decodeUnknownSync(ContractBillFromWire)(record)
)

/** The source: a store holding the records, answering `BillsApi` as the exchange would. */
const source = (engine: (typeof engines)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const target = yield* engine.fresh
      const context = yield* Layer.build(StoreLayer.forTarget(target))
      const held = Effect.provide(
        Effect.gen(function* () {
          const store = yield* BillsStore
          const exchange = StoreAccount.make(Redacted.make("the exchange"), "exchange")
          yield* store.register(exchange)
          yield* store.acquireLease(exchange.id, "contract", "seed", 60_000)
          yield* store.commitPage({
            account: exchange.id,
            kind: "contract",
            owner: "seed",
            leaseMillis: 60_000,
            bills,
            cursor: "{}",
            finished: { from: 0, to: now },
            order: "newest-first"
          })
          return yield* StoreBillsApi.make(exchange.id)
        }),
        context
      )
      return Layer.succeed(BillsApi, yield* held)
    })
  )

const setup = (engine: (typeof engines)[number]) =>
  Layer.merge(source(engine), Layer.unwrapEffect(Effect.map(engine.fresh, (target) => StoreLayer.forTarget(target))))

/** What the target store holds of the futures account, as JSON lines of the raw records. */
const kept = Effect.gen(function* () {
  const api = yield* Effect.provide(BillsApi, StoreBillsApi.layer(account.id))
  const chunk = yield* Stream.runCollect(api.streamContractBills({ from: 0 }))
  return Array.from(chunk, (bill) => JSON.stringify(bill.raw)).sort()
})

const expected = records.map((record) => JSON.stringify(record)).sort()

for (const engine of engines) {
  describe(`contract sync on ${engine.name}`, () => {
    it.effect(
      "a first sync keeps every contract bill once, field for field; the next finds nothing new in one request",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const [first] = yield* Sync.run({ account, kinds: ["contract"], from: historyStart, concurrency: 1 })
          expect(first).toMatchObject({ kind: "contract", added: 1_234, stored: 1_234, done: true })
          expect(yield* kept).toEqual(expected)
          yield* TestClock.adjust("10 minutes")
          const [again] = yield* Sync.run({ account, kinds: ["contract"], concurrency: 1 })
          expect(again).toMatchObject({ added: 0, stored: 1_234, requests: 1 })
        }).pipe(Effect.provide(setup(engine)))
    )

    it.effect(
      "a contract sync stopped after some pages resumes from its cursor: nothing lost, nothing asked twice",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const stopped = yield* Effect.exit(
            Sync.run({
              account,
              kinds: ["contract"],
              from: historyStart,
              concurrency: 1,
              onPage: (progress) => (progress.pages === 3 ? Effect.interrupt : Effect.void)
            })
          )
          expect(Exit.isInterrupted(stopped)).toBe(true)
          expect(yield* (yield* BillsStore).coverage(account.id, "contract")).toMatchObject({ unfinished: true })
          const [resumed] = yield* Sync.run({ account, kinds: ["contract"], concurrency: 1 })
          expect(resumed).toMatchObject({ resumed: true, earlierRequests: 3, stored: 1_234 })
          // Each request of the resumed walk is a page kept: none of the first three asked again.
          expect((resumed?.requests ?? 0) - (resumed?.pages ?? 0)).toBe(0)
          expect(yield* kept).toEqual(expected)
        }).pipe(Effect.provide(setup(engine)))
    )
  })
}
