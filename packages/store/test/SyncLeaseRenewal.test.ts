/**
 * A sync keeps its lease through a page slower than the lease: renewed every third of it. The
 * renewal's fiber is forked only once the first renewal is due (issue 38, section 3, sixth
 * round: a steady pass, one page long, forks none), so this is the case that needs it.
 */
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"

const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")

/** Moves the TestClock in steps of 100 ms, a turn of the event loop each, until it reads `at`. */
const stepUntil = (at: number) =>
  Effect.gen(function* () {
    while ((yield* Clock.currentTimeMillis) < at) {
      yield* TestClock.adjust("100 millis")
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
  })

describe.each(engines)("the lease of a slow sync ($name)", (engine) => {
  it.effect("is renewed while a page takes longer than the lease, so no other sync takes it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 4, 1))
      const store = yield* BillsStore
      yield* store.register(account)
      const start = yield* Clock.currentTimeMillis
      // A 3 s lease, and an exchange that takes 10 s to answer each request.
      const live = yield* Supervisor.track
      const sync = yield* Effect.fork(
        Effect.supervised(Sync.run({ account, kinds: ["spot"], concurrency: 1, lease: "3 seconds" }), live)
      )
      yield* stepUntil(start + 7_000)
      // Still waiting for its first page, twice the lease after taking it: the lease is its.
      expect(yield* store.acquireLease(account.id, "spot", "another sync", 1_000)).toMatchObject({ acquired: false })
      while ((yield* Fiber.poll(sync))._tag === "None") yield* stepUntil((yield* Clock.currentTimeMillis) + 100)
      const [summary] = yield* Fiber.join(sync)
      expect(summary).toMatchObject({ done: true, stored: 40 })
      // The renewal (forked from a timer, not a child of the sync) stopped with it.
      expect(yield* live.value).toEqual([])
      // Let go with its last page: free at once.
      expect(yield* store.acquireLease(account.id, "spot", "another sync", 1_000)).toMatchObject({ acquired: true })
    }).pipe(
      Effect.provide(
        Layer.provideMerge(
          Layer.unwrapEffect(Effect.map(engine.fresh, StoreLayer.layer)),
          TestBillsApi.layerStack({
            rateLimit: false,
            config: { requestTimeout: "1 minute" },
            exchange: { latency: { millis: 10_000 }, generate: { seed: 61, funding: 0, spot: 40 } }
          })
        )
      )
    )
  )
})
