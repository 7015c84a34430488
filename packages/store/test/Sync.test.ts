import { BillsApi } from "@account-bills/core"
import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreBillsApi from "../src/StoreBillsApi.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"
import { runOnTestClock } from "./support/runOnTestClock.js"

// The generated history spans 2025-01-01 and the following 90 days; "now" is after it.
const now = Date.UTC(2025, 4, 1)
const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")

const exchange = (seed: number) =>
  TestBillsApi.layerStack({
    exchange: {
      rateLimit: false,
      generate: { seed, funding: 1_234, spot: 2_345, contract: 1_456, sameMillisecondGroup: { every: 40, size: 5 } }
    }
  })

/**
 * The exchange (with its handle) and a fresh store on `engine`, for one test. The exchange first:
 * the kit moves a TestClock that reads the epoch to after its bills, and a jump of the clock
 * while the PostgreSQL pool connects would fire the pool's connect timeout at once.
 */
const setup = (engine: (typeof engines)[number], seed: number) =>
  Layer.provideMerge(Layer.unwrapEffect(Effect.map(engine.fresh, StoreLayer.layer)), exchange(seed))

/** What an NDJSON export writes, line by line: from the exchange, or from the store. */
const exportLines = Effect.gen(function* () {
  const api = yield* BillsApi
  const lines = (stream: Stream.Stream<{ readonly raw: unknown }, unknown>) =>
    Effect.map(Stream.runCollect(stream), (chunk) => Array.from(chunk, (bill) => JSON.stringify(bill.raw)))
  return {
    funding: yield* lines(api.streamFundingBills()),
    spot: yield* lines(api.streamSpotBills()),
    contract: yield* lines(api.streamContractBills())
  }
})

const fromStore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, StoreBillsApi.layer(account.id))

/** The exchange's own records, in its canonical order, as the JSON it serves. */
const held = Effect.gen(function* () {
  const fake = yield* FakeExchange
  const funding = (yield* fake.bills("funding")).map((bill) => JSON.stringify(bill))
  const spot = (yield* fake.bills("spot")).map((bill) => JSON.stringify(bill))
  // The futures account's records go out under v2's or v3's names, so the store's are checked
  // against the client's export from the exchange, and their ids against the exchange's.
  const contract = (yield* Stream.runCollect((yield* BillsApi).streamContractBills())).pipe((chunk) =>
    Array.from(chunk, (bill) => JSON.stringify(bill.raw))
  )
  const ids = (yield* fake.contractBills).map((bill) => bill.billId).sort()
  expect(contract.map((line) => String(JSON.parse(line).billId)).sort()).toEqual(ids)
  return { funding, spot, contract }
})

const sorted = (lines: ReadonlyArray<string>) => [...lines].sort()

const requestsOf = Effect.gen(function* () {
  const stats = yield* (yield* FakeExchange).stats
  return {
    funding: stats.fundingBills.requests,
    spot: stats.spotBills.requests,
    contract: stats.contractBills.requests
  }
})

for (const engine of engines) {
  describe(`Sync on ${engine.name}`, () => {
    it.effect("a first sync keeps every bill exactly once, field for field, and reads back as the exchange lists", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const summaries = yield* Sync.run({ account })
        const exchangeBills = yield* held
        expect(summaries.map((s) => [s.kind, s.added, s.stored, s.resumed])).toEqual([
          ["funding", exchangeBills.funding.length, exchangeBills.funding.length, false],
          ["spot", exchangeBills.spot.length, exchangeBills.spot.length, false],
          ["contract", exchangeBills.contract.length, exchangeBills.contract.length, false]
        ])
        const stored = yield* fromStore(exportLines)
        expect(sorted(stored.funding)).toEqual(sorted(exchangeBills.funding))
        expect(sorted(stored.spot)).toEqual(sorted(exchangeBills.spot))
        expect(sorted(stored.contract)).toEqual(sorted(exchangeBills.contract))
        // Byte for byte the export from the exchange, in the exchange's order.
        expect(stored).toEqual(yield* exportLines)
      }).pipe(Effect.provide(setup(engine, 11)))
    )

    it.effect("later syncs fetch only what is new: 1,000 new bills cost at most 15 requests per account", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        yield* Sync.run({ account })
        const fake = yield* FakeExchange
        const before = yield* requestsOf
        yield* fake.appendGenerated("funding", 1_000, { startMillis: now + 1, endMillis: now + 50_000 })
        yield* fake.appendGenerated("spot", 1_000, { startMillis: now + 1, endMillis: now + 50_000 })
        yield* TestClock.adjust("10 minutes")
        const summaries = yield* Sync.run({ account })
        const after = yield* requestsOf
        expect(summaries.map((s) => [s.kind, s.added])).toEqual([
          ["funding", 1_000],
          ["spot", 1_000],
          ["contract", 0]
        ])
        expect(after.funding - before.funding).toBeLessThanOrEqual(15)
        expect(after.spot - before.spot).toBeLessThanOrEqual(15)
        expect(after.contract - before.contract).toBeLessThanOrEqual(15)
        const exchangeBills = yield* held
        const stored = yield* fromStore(exportLines)
        expect(sorted(stored.funding)).toEqual(sorted(exchangeBills.funding))
        expect(sorted(stored.spot)).toEqual(sorted(exchangeBills.spot))
        expect(sorted(stored.contract)).toEqual(sorted(exchangeBills.contract))
      }).pipe(Effect.provide(setup(engine, 12)))
    )

    it.effect("a bill that turns up late, within the overlap, is found by the next sync; repeats are dropped", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        yield* Sync.run({ account })
        const fake = yield* FakeExchange
        // Booked 30 s before the last sync's end, visible only now: within the 60 s overlap.
        const [late] = yield* fake.appendGenerated("spot", 1, { startMillis: now - 30_000, endMillis: now - 30_000 })
        yield* TestClock.adjust("5 minutes")
        const second = yield* Sync.run({ account })
        expect(second.map((s) => [s.kind, s.added])).toEqual([
          ["funding", 0],
          ["spot", 1],
          ["contract", 0]
        ])
        const stored = yield* fromStore(exportLines)
        expect(stored.spot).toContain(JSON.stringify(late))
        expect(sorted(stored.spot)).toEqual(sorted((yield* held).spot))
      }).pipe(Effect.provide(setup(engine, 13)))
    )

    it.effect("a sync stopped after some pages resumes from its cursor: nothing lost, nothing fetched twice", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        // Each kind stopped right after its fourth page committed. One page at a time, so that the
        // requests are the pages: with read-ahead, pages fetched but not committed are asked again.
        for (const kind of ["funding", "spot", "contract"] as const) {
          const stopped = yield* Effect.exit(
            Sync.run({
              account,
              kinds: [kind],
              concurrency: 1,
              onPage: (progress) => (progress.pages === 4 ? Effect.interrupt : Effect.void)
            })
          )
          expect(Exit.isInterrupted(stopped)).toBe(true)
        }
        const firstRun = yield* requestsOf
        const resumed = yield* Sync.run({ account, concurrency: 1 })
        expect(resumed.map((s) => s.resumed)).toEqual([true, true, true])
        // The walk goes on from page five: the summary counts this run's requests, and says the
        // earlier run sent four.
        expect(resumed.map((s) => s.requests - s.pages)).toEqual([0, 0, 0])
        expect(resumed.map((s) => s.earlierRequests)).toEqual([4, 4, 4])
        const total = yield* requestsOf
        // Resuming asks only for the pages not committed yet.
        expect(total.funding - firstRun.funding).toBe(resumed[0]?.pages)
        expect(total.spot - firstRun.spot).toBe(resumed[1]?.pages)
        expect(total.contract - firstRun.contract).toBe(resumed[2]?.pages)
        const exchangeBills = yield* held
        const stored = yield* fromStore(exportLines)
        expect(sorted(stored.funding)).toEqual(sorted(exchangeBills.funding))
        expect(sorted(stored.spot)).toEqual(sorted(exchangeBills.spot))
        expect(sorted(stored.contract)).toEqual(sorted(exchangeBills.contract))
      }).pipe(Effect.provide(setup(engine, 14)))
    )

    it.effect("a second sync of the same account fails with SyncBusy while the first holds the lease", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        expect(yield* store.acquireLease(account.id, "spot", "another sync", 30_000)).toMatchObject({ acquired: true })
        const error = yield* Effect.flip(Sync.run({ account, kinds: ["spot"], waitForLease: 0 }))
        expect(error._tag).toBe("SyncBusy")
        expect(error.message).toBe(
          `another sync of main spot bills is running on this store (its lease runs to ${new Date(now + 30_000).toISOString()}); wait for it to finish`
        )
        expect(yield* store.count(account.id, "spot")).toBe(0)
        // Once the holder lets go, the same sync runs.
        yield* store.releaseLease(account.id, "spot", "another sync")
        const [summary] = yield* Sync.run({ account, kinds: ["spot"], waitForLease: 0 })
        expect(summary?.stored).toBe((yield* held).spot.length)
      }).pipe(Effect.provide(setup(engine, 15)))
    )

    it.effect("a lease held by a sync that died runs out, and the next sync takes over", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const store = yield* BillsStore
        yield* store.register(account)
        yield* store.acquireLease(account.id, "funding", "a killed sync", 2_000)
        const started = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        const [summary] = yield* runOnTestClock(Sync.run({ account, kinds: ["funding"], waitForLease: "1 hour" }))
        expect(yield* Effect.clockWith((clock) => clock.currentTimeMillis)).toBeGreaterThanOrEqual(started + 2_000)
        expect(summary?.stored).toBe((yield* held).funding.length)
      }).pipe(Effect.provide(setup(engine, 16)))
    )

    it.effect("a label that already belongs to another API key is refused", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        yield* Sync.run({ account, kinds: ["funding"] })
        const other = StoreAccount.make(Redacted.make("another-api-key"), "main")
        const error = yield* Effect.flip(Sync.run({ account: other, kinds: ["funding"] }))
        expect(error._tag).toBe("StoreAccountMismatch")
        expect(error.message).not.toContain("another-api-key")
        // Unlabelled, the other key is an account of its own in the same store.
        const unlabelled = StoreAccount.make(Redacted.make("another-api-key"))
        yield* (yield* BillsStore).register(unlabelled)
      }).pipe(Effect.provide(setup(engine, 17)))
    )
  })
}
