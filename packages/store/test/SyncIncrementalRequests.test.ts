/**
 * The requests of `bills sync --account spot` after 1,000 new bills (issue 38, section 4): at most
 * ⌈1000/100⌉ + 2 = 12, when the sync runs right after another on one client, whose limiter is then
 * at its limit, so every page waits for a permit, and the new bills lie close together after a
 * quiet span of the overlap, 20 ms from the exchange. Through the whole client stack (limiter, signer, HttpClient) over the
 * fake exchange, which limits to 10 a second as WEEX does.
 */
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"
import { runOnTestClock } from "./support/runOnTestClock.js"

const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")
const sqlite = engines.find((engine) => engine.name === "sqlite")

describe("an incremental spot sync", () => {
  it.effect("after 1,000 new bills costs at most 12 requests, every bill stored once", () =>
    Effect.gen(function* () {
      const fake = yield* FakeExchange
      const spot = Sync.run({ account, kinds: ["spot"] })
      yield* TestClock.setTime(Date.UTC(2025, 4, 1))
      yield* runOnTestClock(spot)
      // New bills over the last 30 s, right after the first sync, as bench/sync.ts adds them: the
      // client's limiter is still at its limit, and the overlap before the new bills is quiet.
      const now = yield* fake.serverTime
      yield* fake.appendGenerated("spot", 1_000, { startMillis: now - 30_000, endMillis: now - 1_000 })
      const before = (yield* fake.stats).spotBills
      const [summary] = yield* runOnTestClock(spot)
      const after = (yield* fake.stats).spotBills
      expect(summary?.added).toBe(1_000)
      expect(after.rateLimited - before.rateLimited).toBe(0)
      expect(after.requests - before.requests).toBeLessThanOrEqual(12)
    }).pipe(
      Effect.provide(
        Layer.provideMerge(
          Layer.unwrapEffect(Effect.map((sqlite ?? (engines[0] as (typeof engines)[number])).fresh, StoreLayer.layer)),
          TestBillsApi.layerStack({
            rateLimit: {},
            exchange: {
              latency: { millis: 20 },
              generate: { seed: 38, funding: 0, spot: 2_000, sameMillisecondGroup: { every: 40, size: 5 } }
            }
          })
        )
      )
    )
  )
})
