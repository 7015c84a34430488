/**
 * A futures history under a horizon (the exchange refuses a start bound older than it keeps, as
 * v3's -1170 "startTime must be within the last N days" and the spot interface's 40704 say): a
 * walk with no start learns the horizon from its first refusal and reads every served bill once,
 * for its pages and the refusal's cost (the refusal, a probe at the refused start, two probes
 * confirming the days the message names), not one request per 100 days back to 2018
 * (docs/internals/futures-account.md, "Where a walk with no start begins").
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { BillGenerator, FakeExchange, TestBillsApi } from "../../src/testing/index.js"

const day = 86_400_000
const now = Date.UTC(2026, 5, 1)

describe("streamContractBills under a horizon", () => {
  for (const apiVersion of ["v2", "v3"] as const) {
    for (const concurrency of [1, 8]) {
      it.effect(
        `every bill of a first walk once, the horizon learned at one refusal (${apiVersion}, concurrency ${concurrency})`,
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(now)
            const api = yield* BillsApi
            const exchange = yield* FakeExchange
            const all = yield* exchange.contractBills
            const got = yield* Stream.runCollect(api.streamContractBills({ concurrency }))
            expect(new Set([...got].map((bill) => bill.billId)).size).toBe(all.length)
            expect(got.length).toBe(all.length)
            if (concurrency === 1) {
              // 80 full pages, the empty answer that ends the walk, the refusal and three probes.
              const requests = (yield* exchange.stats).contractBills.requests
              expect(requests, `${requests} requests for ${all.length} bills`).toBeLessThanOrEqual(80 + 1 + 4)
            }
          }).pipe(
            Effect.provide(
              TestBillsApi.layerStack({
                apiVersion,
                exchange: {
                  bills: {
                    contract: BillGenerator.generateContract({
                      count: 8_000,
                      startMillis: now - 80 * day,
                      endMillis: now - 60_000,
                      seed: 7
                    })
                  },
                  lookbackMillis: 90 * day
                },
                rateLimit: false
              })
            )
          )
      )
    }
  }
})
