/**
 * A pass interrupted in the middle of its walk (its account's shard moved to a runner that
 * joined, or the runner shut down) keeps the pages it committed, and the fleet's counters say so:
 * the bills and requests a pass counts go into `FleetMetrics` as they happen, not at its end.
 * Counted at the end, a fleet whose first passes were all cut short by a second runner joining
 * showed 0 bills stored while its store held them all (seen in `FleetPrometheus`).
 */
import { BillsRateLimiter } from "@account-bills/core"
import { BillsStore } from "@account-bills/store"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { AccountPass, AddressBudget, FleetAccounts, FleetMetrics } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"

const keys = { apiKey: "interrupted-key", secret: "s-1", passphrase: "p-1" }
const funding = 3_000

describe.skipIf(postgresUrl === undefined)("a pass interrupted mid-walk", () => {
  it.live("its committed bills and its sent requests are counted in the fleet's metrics", () =>
    Effect.gen(function* () {
      const { exchange, database } = yield* seededFleet({
        accounts: 1,
        labelOf: () => "cut",
        credentialsOf: () => keys,
        perAddress: false,
        exchangeOf: (_, now) => ({
          rateLimit: false,
          generate: { seed: 41, funding, spot: 0, startMillis: now - 86_400_000, endMillis: now - 60_000 }
        })
      })
      const counted = Effect.all({
        bills: Metric.value(Metric.tagged(FleetMetrics.bills, "kind", "funding")),
        requests: Metric.value(Metric.tagged(FleetMetrics.requests, "kind", "funding"))
      })
      const before = yield* counted
      const stored = Effect.flatMap(BillsStore, (store) =>
        store.fundingPage("cut", { pageIndex: 1, pageSize: 100_000 })
      ).pipe(Effect.map((page) => page.items.length))
      yield* Effect.gen(function* () {
        const opened = yield* (yield* FleetAccounts).open("cut")
        // Ten pages a second: the walk of 30 pages is still going when it is interrupted.
        const perKey = yield* BillsRateLimiter.make({ limit: 10 })
        const pass = yield* Effect.fork(
          AccountPass.run(opened.account, opened.credentials, perKey, {
            pagesPerPass: 1_000,
            concurrency: 1,
            config: { baseUrl: exchange.url },
            kinds: ["funding"]
          })
        )
        while ((yield* stored) < 500) yield* Effect.sleep("20 millis")
        yield* Fiber.interrupt(pass)
      }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
      const after = yield* counted
      const held = yield* stored.pipe(Effect.provide(database))
      // Cut short: some pages stored, not all.
      expect(held).toBeGreaterThanOrEqual(500)
      expect(held).toBeLessThan(funding)
      expect(after.bills.count - before.bills.count).toBe(held)
      const sent = exchange.requests().filter((request) => request.operation === "fundingBills").length
      expect(after.requests.count - before.requests.count).toBe(sent)
    }).pipe(Effect.scoped)
  )
})
