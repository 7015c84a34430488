/**
 * `SyncOptions.until` bounds a run in time, as `maxPages` bounds it in pages: each kind stops
 * after the first page that arrives once the clock reads `until` (or after `maxPages` pages), asks
 * the exchange for nothing more, and the next run resumes from the stored cursor. At `concurrency` 1 every request made is
 * a page kept. Under TestClock, 100 ms from the fake exchange, through the whole client stack.
 */
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"
import { runOnTestClock } from "./support/runOnTestClock.js"

const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")
const sqlite = engines.find((engine) => engine.name === "sqlite")

const stack = Layer.provideMerge(
  Layer.unwrapEffect(Effect.map((sqlite ?? (engines[0] as (typeof engines)[number])).fresh, StoreLayer.layer)),
  TestBillsApi.layerStack({
    rateLimit: {},
    exchange: { latency: { millis: 100 }, generate: { seed: 41, funding: 2_000, spot: 2_000 } }
  })
)

describe("a sync bounded in time", () => {
  it.effect(
    "stops after the page that arrives once the clock reads `until`; the next run finishes it, no request lost",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeExchange
        const store = yield* BillsStore
        yield* TestClock.setTime(Date.UTC(2025, 4, 1))
        const start = yield* Clock.currentTimeMillis
        const until = start + 1_000
        const [bounded] = yield* runOnTestClock(Sync.run({ account, kinds: ["funding"], concurrency: 1, until }))
        const stoppedAt = yield* Clock.currentTimeMillis
        const afterBounded = (yield* fake.stats).fundingBills.requests
        expect(bounded?.done).toBe(false)
        expect(bounded?.pages).toBeGreaterThan(1)
        expect(bounded?.pages).toBeLessThan(20)
        // It went on until the clock read `until`, and stopped within a page of it.
        expect(stoppedAt).toBeGreaterThanOrEqual(until)
        expect(stoppedAt).toBeLessThan(until + 1_000)
        // Every request it made is a page it kept.
        expect(afterBounded).toBe(bounded?.pages)
        const [rest] = yield* runOnTestClock(Sync.run({ account, kinds: ["funding"], concurrency: 1 }))
        expect(rest?.done).toBe(true)
        expect((yield* fake.stats).fundingBills.requests).toBe((bounded?.pages ?? 0) + (rest?.pages ?? 0))
        expect(yield* store.count(account.id, "funding")).toBe(2_000)
      }).pipe(Effect.provide(stack))
  )
})

describe("a sync bounded in pages", () => {
  for (const kind of ["funding", "spot"] as const) {
    it.effect(`${kind}: keeps maxPages pages, asks for none beyond them, and the next run finishes it`, () =>
      Effect.gen(function* () {
        const fake = yield* FakeExchange
        const store = yield* BillsStore
        yield* TestClock.setTime(Date.UTC(2025, 4, 1))
        const requests = Effect.map(fake.stats, (stats) =>
          kind === "funding" ? stats.fundingBills.requests : stats.spotBills.requests
        )
        const [bounded] = yield* runOnTestClock(Sync.run({ account, kinds: [kind], concurrency: 1, maxPages: 3 }))
        expect(bounded?.done).toBe(false)
        expect(bounded?.pages).toBe(3)
        // Every request it made is a page it kept.
        expect(yield* requests).toBe(3)
        const [rest] = yield* runOnTestClock(Sync.run({ account, kinds: [kind], concurrency: 1 }))
        expect(rest?.done).toBe(true)
        expect(yield* requests).toBe(3 + (rest?.pages ?? 0))
        expect(yield* store.count(account.id, kind)).toBe(2_000)
      }).pipe(Effect.provide(stack))
    )
  }
})
