/**
 * `streamContractBills` against the fake exchange, whose contract rules are strict (both bounds,
 * at most 100 days apart, limit <= 100): every bill of the window exactly once over histories
 * longer than 100 days, ties inside one millisecond, either order, either bound convention, both
 * versions; lazy; a millisecond fuller than a page named in a typed error; a refusal typed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import type * as Tracer from "effect/Tracer"
import * as fc from "fast-check"
import { BillsApi, type ContractBill } from "../../src/index.js"
import { recordingSpans } from "../support/recordedSpans.js"
import { propertyParameters } from "../support/walkProperty.js"
import { BillGenerator, type ContractWireBill, FakeExchange, FakeFault, TestBillsApi } from "../../src/testing/index.js"

const day = 86_400_000
const t0 = Date.UTC(2025, 0, 1)

/** Drains a contract stream, keeping what came before a failure. */
const drain = (stream: Stream.Stream<ContractBill, unknown>) =>
  Effect.map(Effect.exit(Stream.runCollect(stream)), (exit) => exit)

/**
 * Exactly `expected`, each once, in time order: the server's, or, when no page could show it
 * (slices of 100 days holding one millisecond each), the order the walk took them in; either
 * way one direction throughout, which the ledger's merge needs.
 */
const expectExactly = (
  got: ReadonlyArray<ContractBill>,
  expected: ReadonlyArray<ContractWireBill>,
  order: "newest-first" | "oldest-first"
) => {
  const ids = got.map((bill) => bill.billId)
  expect(new Set(ids).size).toBe(ids.length)
  expect([...ids].sort()).toEqual(expected.map((bill) => bill.billId).sort())
  const times = got.map((bill) => DateTime.toEpochMillis(bill.cTime))
  const rising = times.every((t, i) => i === 0 || t >= (times[i - 1] as number))
  const falling = times.every((t, i) => i === 0 || t <= (times[i - 1] as number))
  expect(rising || falling, `not in one time order: ${times.join(", ")}`).toBe(true)
  // Two bills of different times within 100 days share a page (or a slice), which shows the order.
  const shown = times.some((t, i) => i > 0 && t !== times[i - 1] && Math.abs(t - (times[i - 1] as number)) < 100 * day)
  if (shown) expect(order === "newest-first" ? falling : rising).toBe(true)
}

const history = (seed: number, count: number, days: number, group: number) =>
  BillGenerator.generateContract({
    count,
    startMillis: t0,
    endMillis: t0 + days * day,
    seed,
    sameMillisecondGroup: group > 1 ? { every: 7, size: group } : undefined
  })

/** A v3 exchange with 300 contract bills over 400 days, no rate limit. */
const fourHundredDays = TestBillsApi.layerStack({
  apiVersion: "v3",
  exchange: { bills: { contract: history(5, 300, 400, 1) } },
  rateLimit: false
})

describe("streamContractBills", () => {
  it("lists every bill of any window exactly once (generated histories, both versions, orders and bounds)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          count: fc.integer({ min: 0, max: 450 }),
          days: fc.integer({ min: 1, max: 400 }),
          group: fc.integer({ min: 1, max: 60 }),
          order: fc.constantFrom("newest-first" as const, "oldest-first" as const),
          bounds: fc.constantFrom("inclusive" as const, "exclusive" as const),
          apiVersion: fc.constantFrom("v2" as const, "v3" as const),
          from: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
          width: fc.option(fc.integer({ min: 1, max: 420 }), { nil: undefined }),
          concurrency: fc.constantFrom(1, 3, 9)
        }),
        async (c) => {
          const bills = history(c.seed, c.count, c.days, c.group)
          const end = t0 + (c.days + 1) * day
          const from = c.from === undefined ? undefined : t0 + Math.floor(c.from * (c.days + 1) * day) - 12_345
          const to = c.width === undefined ? undefined : (from ?? t0) + c.width * day
          const expected = bills.filter((bill) => {
            const t = Number(bill.cTime)
            return (from === undefined || t >= from) && t < Math.min(to ?? end, end)
          })
          const program = Effect.gen(function* () {
            yield* TestClock.setTime(end)
            const api = yield* BillsApi
            const exit = yield* drain(api.streamContractBills({ from, to, concurrency: c.concurrency }))
            if (exit._tag === "Failure") expect.fail(String(exit.cause))
            expectExactly(exit._tag === "Success" ? [...exit.value] : [], expected, c.order)
          }).pipe(
            Effect.provide(
              TestBillsApi.layerStack({
                apiVersion: c.apiVersion,
                exchange: { bills: { contract: bills }, order: c.order, bounds: c.bounds },
                rateLimit: false
              })
            )
          )
          await Effect.runPromise(Effect.provide(program, TestContext.TestContext))
        }
      ),
      propertyParameters(60, 33)
    )
  }, 240_000)

  it.effect("walks a history of 400 days in slices the exchange accepts (it refuses more than 100 days)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 401 * day)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const all = yield* exchange.contractBills
      const got = yield* Stream.runCollect(api.streamContractBills({ concurrency: 1 }))
      expectExactly([...got], all, "newest-first")
      const requests = yield* exchange.requests
      for (const request of requests.filter((r) => r.operation === "contractBills")) {
        const body = JSON.parse(request.body) as { startTime: number; endTime: number }
        expect(body.endTime - body.startTime).toBeLessThanOrEqual(100 * day)
      }
    }).pipe(Effect.provide(fourHundredDays))
  )

  it.effect("is lazy: taking 5 bills costs one request", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 91 * day)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const five = yield* Stream.runCollect(Stream.take(api.streamContractBills(), 5))
      expect(five.length).toBe(5)
      expect((yield* exchange.stats).contractBills.requests).toBe(1)
    }).pipe(
      Effect.provide(
        TestBillsApi.layerStack({ exchange: { bills: { contract: history(2, 1000, 80, 1) } }, rateLimit: false })
      )
    )
  )

  it.effect("fails with BillsIncomplete naming a millisecond that holds more bills than a page", () =>
    Effect.gen(function* () {
      const crowded = t0 + 5 * day + 777
      const bills = history(3, 250, 10, 1).map((bill, i) =>
        i >= 100 && i < 202 ? { ...bill, cTime: String(crowded) } : bill
      )
      const sorted = [...bills].sort((a, b) => Number(a.cTime) - Number(b.cTime))
      yield* FakeExchange.pipe(Effect.flatMap((exchange) => exchange.appendContract(sorted)))
      yield* TestClock.setTime(t0 + 11 * day)
      const api = yield* BillsApi
      const error = yield* Effect.flip(Stream.runCollect(api.streamContractBills({ concurrency: 1 })))
      expect(error._tag).toBe("BillsIncomplete")
      expect(error._tag === "BillsIncomplete" ? error.millisecond : undefined).toBe(crowded)
      expect(error.message).toContain("contractBills")
    }).pipe(Effect.provide(TestBillsApi.layerStack({ exchange: {}, rateLimit: false })))
  )

  it.effect("a key the futures interface refuses fails the stream with the typed refusal", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 91 * day)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* exchange.setPermanentFault(
        FakeFault.Code({ status: 400, code: "40014", msg: "Incorrect permissions: no futures permission" })
      )
      const error = yield* Effect.flip(Stream.runCollect(api.streamContractBills()))
      expect(error._tag).toBe("BillsApiError")
      expect(error._tag === "BillsApiError" ? error.reason : undefined).toBe("Permission")
      expect(error._tag === "BillsApiError" ? error.operation : undefined).toBe("contractBills")
    }).pipe(
      Effect.provide(
        TestBillsApi.layerStack({ exchange: { bills: { contract: history(4, 50, 30, 1) } }, rateLimit: false })
      )
    )
  )
})

describe("streamContractBills: its traces", () => {
  it.effect("one start span, and a page span per request naming the bounds and limit it sent", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.Span> = []
      yield* TestClock.setTime(t0 + 401 * day)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const got = yield* Stream.runCollect(api.streamContractBills({ concurrency: 1 })).pipe(recordingSpans(spans))
      expect(got.length).toBe(300)
      const sent = (yield* exchange.requests)
        .filter((request) => request.operation === "contractBills")
        .map((request) => JSON.parse(request.body) as { startTime: number; endTime: number; limit: number })
      expect(sent.length).toBeGreaterThan(5)
      expect(spans.filter((span) => span.name === "BillsApi.streamContract.start")).toHaveLength(1)
      expect(
        spans
          .filter((span) => span.name === "BillsApi.streamContract.page")
          .map((span) => ["startTime", "endTime", "limit"].map((key) => span.attributes.get(key)))
      ).toEqual(sent.map((body) => [body.startTime, body.endTime, body.limit]))
      // Each request is an attempt of the client's pipeline, inside its page's span.
      const attempts = spans.filter((span) => span.name === "BillsApi.attempt")
      expect(attempts).toHaveLength(sent.length)
      expect(
        attempts.every(
          (span) =>
            span.parent._tag === "Some" &&
            span.parent.value._tag === "Span" &&
            span.parent.value.name === "BillsApi.streamContract.page"
        )
      ).toBe(true)
    }).pipe(Effect.provide(fourHundredDays))
  )
})
