/**
 * The store never claims a window it did not read. A first sync covers up to 2025-05-01; 50
 * bills arrive 10 to 20 days later; the next sync runs 200 days on against an exchange that
 * serves 90 days, so those bills aged out before any sync could read them. The store says so:
 * the covered window keeps the gap as aged out, the sync's summary names it, and a read that
 * meets it is not whole.
 */
import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"

const day = 86_400_000
const may = Date.UTC(2025, 4, 1)
const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")

const setup = (engine: (typeof engines)[number]) =>
  Layer.provideMerge(
    Layer.unwrapEffect(Effect.map(engine.fresh, StoreLayer.layer)),
    TestBillsApi.layerStack({
      exchange: {
        rateLimit: false,
        lookbackMillis: 90 * day,
        generate: { seed: 28, funding: 300, spot: 400, startMillis: may - 60 * day, endMillis: may - day }
      }
    })
  )

for (const engine of engines) {
  describe(`a sync after the horizon passed what it had not read, on ${engine.name}`, () => {
    it.effect("keeps the unread window apart as aged out, and says so", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(may)
        yield* Sync.run({ account })
        const store = yield* BillsStore
        expect((yield* store.coverage(account.id, "spot")).coveredTo).toBe(may)

        const fake = yield* FakeExchange
        const late = { startMillis: may + 10 * day, endMillis: may + 20 * day }
        yield* fake.appendGenerated("funding", 50, late)
        yield* fake.appendGenerated("spot", 50, late)
        yield* TestClock.adjust(200 * day)
        const summaries = yield* Sync.run({ account })

        for (const kind of ["funding", "spot"] as const) {
          const summary = summaries.find((each) => each.kind === kind)
          const coverage = yield* store.coverage(account.id, kind)
          // What the store holds: none of the 50 late bills.
          expect(coverage.bills, kind).toBe(kind === "funding" ? 300 : 400)
          expect(coverage.unfinished, kind).toBe(false)
          // The window it claims has the gap in it, from the first sync's end to the horizon.
          expect(coverage.agedOut, kind).toHaveLength(1)
          const [gap] = coverage.agedOut
          expect(gap?.from, kind).toBe(may)
          expect(gap?.to ?? 0, kind).toBeGreaterThanOrEqual(may + 20 * day)
          expect(gap?.to ?? 0, kind).toBeLessThanOrEqual(may + 110 * day + 120_000)
          expect(summary?.agedOut, kind).toEqual(gap)
        }
        // A third sync adds no gap and keeps the one it has.
        yield* TestClock.adjust("1 hour")
        const third = yield* Sync.run({ account })
        expect(third.map((each) => each.agedOut)).toEqual([undefined, undefined, undefined])
        expect((yield* store.coverage(account.id, "spot")).agedOut).toHaveLength(1)
      }).pipe(Effect.provide(setup(engine)))
    )
  })
}
