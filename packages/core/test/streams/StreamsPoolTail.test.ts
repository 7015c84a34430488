/**
 * The tail of a far export, on a history of another shape than the far rows' own: 10,000 bills
 * over 90 days that end a day before the clock (a user who last traded yesterday), exported by
 * the spot and the contract walks 300 ms from the exchange's strict 10-per-second window, under
 * the TestClock. A segment behind the head that had filled its queue used to wait, its walk idle,
 * until the head was emitted, and then walk its last pages one round trip at a time while nothing
 * else was left: the last requests came 600 to 1,200 ms late. It now hands its unread part on.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { BillGenerator, FakeExchange } from "../../src/testing/index.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"

const day = 86_400_000
const now = Date.UTC(2026, 10, 27)
const batch = { count: 10_000, startMillis: now - 91 * day, endMillis: now - day }
const contract = BillGenerator.generateContract({ ...batch, seed: 38 })
const spot = BillGenerator.make({ seed: 38 }).generate("spot", batch)

/** The arrivals of one export of `account`, `latency` ms away, after checking it is exact. */
const exportAt = (account: "spot" | "contract", latency: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const api = yield* BillsApi
    const stream: Stream.Stream<{ readonly billId: string }, unknown> =
      account === "spot" ? api.streamSpotBills() : api.streamContractBills()
    const exit = yield* runOnTestClock(Stream.runCollect(stream), 10)
    if (Exit.isFailure(exit)) return yield* Effect.dieMessage(String(exit.cause))
    const ids = Chunk.toReadonlyArray(exit.value).map((bill) => bill.billId)
    expect(ids.length).toBe(10_000)
    expect(new Set(ids).size).toBe(10_000)
    const exchange = yield* FakeExchange
    const operation = account === "spot" ? "spotBills" : "contractBills"
    expect((yield* exchange.stats)[operation].rateLimited).toBe(0)
    return (yield* exchange.requests)
      .filter((request) => request.operation === operation)
      .map((request) => request.arrivalMillis)
  }).pipe(
    Effect.provide(
      fakeStack(
        {
          exchange: { bills: account === "spot" ? { spot } : { contract }, latency: { millis: latency } },
          rateLimit: {}
        },
        "v3"
      )
    )
  )

describe("the tail of a far export", () => {
  for (const account of ["spot", "contract"] as const) {
    it.effect(
      `${account}, 300 ms away, 90 days ending yesterday: no slot of the last 30 waits longer than a round trip`,
      () =>
        Effect.gen(function* () {
          const latency = 300
          const arrivals = yield* exportAt(account, latency)
          // Request p + 10 follows request p by the window and the limiter's margin (1,025 ms) when
          // a walk stands ready; the TestClock's rounding adds 1 or 2 ms. Under a strict window a
          // late slot is never made up: each later request of its class of ten comes as late.
          const late = arrivals.slice(10).map((at, p) => at - (arrivals[p] as number) - 1025)
          const tail = late.slice(-30).filter((l) => l > 2)
          console.log(
            `${account} ${latency} ms: ${arrivals.length} requests, the last 30 slots late: ${tail.join(" ")}`
          )
          // A slot may find every walk waiting for an answer (the limiter hands its permits out in
          // clusters), never for two: that is a walk whose last pages go one round trip apart.
          expect(Math.max(0, ...tail)).toBeLessThanOrEqual(latency + 2)
          expect(tail.length).toBeLessThanOrEqual(2)
        }),
      120_000
    )
  }
})
