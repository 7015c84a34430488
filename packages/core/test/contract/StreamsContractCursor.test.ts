/**
 * A millisecond fuller than a page on the contract interface. No time window can list its bills,
 * so on v2 the walk fails naming it; on v3 the answer carries a cursor (`nextKey`), and the walk
 * reads the rest of that millisecond by it, through the real pipeline, against the fake exchange
 * that serves the cursor as documented. An answer without the cursor still fails as on v2.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as fc from "fast-check"
import { BillsApi, type ContractBill } from "../../src/index.js"
import { BillGenerator, type ContractWireBill, FakeExchange, TestBillsApi } from "../../src/testing/index.js"
import { propertyParameters } from "../support/walkProperty.js"
import { wrappedStack } from "../support/wrappedStack.js"

const day = 86_400_000
const t0 = Date.UTC(2025, 0, 1)
const crowded = t0 + 5 * day + 777

/**
 * 350 bills over ten days, 250 of them in the one millisecond `crowded`, with bills on both sides
 * of it (some a millisecond away, where a walk that overshoots or stops short would show it).
 */
const bills: ReadonlyArray<ContractWireBill> = BillGenerator.generateContract({
  count: 350,
  startMillis: t0,
  endMillis: t0 + 10 * day,
  seed: 38
}).map((bill, i) =>
  i >= 50 && i < 300
    ? { ...bill, cTime: String(crowded) }
    : i === 48 || i === 300
      ? { ...bill, cTime: String(crowded + (i === 48 ? -1 : 1)) }
      : bill
)

const expectEveryBillOnce = (got: ReadonlyArray<ContractBill>) => {
  const ids = got.map((bill) => bill.billId)
  expect(new Set(ids).size).toBe(ids.length)
  expect([...ids].sort()).toEqual(bills.map((bill) => bill.billId).sort())
  const times = got.map((bill) => DateTime.toEpochMillis(bill.cTime))
  const falling = times.every((t, i) => i === 0 || t <= (times[i - 1] as number))
  const rising = times.every((t, i) => i === 0 || t >= (times[i - 1] as number))
  expect(falling || rising).toBe(true)
}

const contractRequests = (exchange: FakeExchange["Type"]) =>
  Effect.map(exchange.requests, (requests) => requests.filter((r) => r.operation === "contractBills"))

describe("streamContractBills and a millisecond fuller than a page", () => {
  for (const order of ["newest-first", "oldest-first"] as const) {
    for (const bounds of ["inclusive", "exclusive"] as const) {
      for (const concurrency of [1, 9]) {
        it.effect(
          `v3: reads the millisecond on by the cursor, every bill once (${order}, ${bounds}, ${concurrency})`,
          () =>
            Effect.gen(function* () {
              yield* TestClock.setTime(t0 + 11 * day)
              const api = yield* BillsApi
              const exchange = yield* FakeExchange
              const got = yield* Stream.runCollect(api.streamContractBills({ from: t0, concurrency }))
              expectEveryBillOnce([...got])
              const requests = yield* contractRequests(exchange)
              const cursored = requests.filter((r) => (r.params as { nextKeyId?: unknown }).nextKeyId !== undefined)
              // The 250 bills take three pages: at least two of them by the cursor, each at the millisecond.
              expect(cursored.length).toBeGreaterThanOrEqual(2)
              for (const r of cursored) expect((r.params as { nextKeyTime?: unknown }).nextKeyTime).toBe(crowded)
              expect(requests.every((r) => r.outcome._tag === "Answered" && r.outcome.status === 200)).toBe(true)
            }).pipe(
              Effect.provide(
                TestBillsApi.layerStack({
                  apiVersion: "v3",
                  exchange: { bills: { contract: bills }, order, bounds },
                  rateLimit: false
                })
              )
            )
        )
      }
    }
  }

  it("v3: every bill once whatever the crowd (property: sizes, places, orders, bounds, concurrency)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          // Crowds around a page and a few pages; and two of them, one maybe at the window's edge.
          sizes: fc.array(fc.integer({ min: 1, max: 320 }), { minLength: 1, maxLength: 2 }),
          others: fc.integer({ min: 0, max: 150 }),
          edge: fc.boolean(),
          order: fc.constantFrom("newest-first" as const, "oldest-first" as const),
          bounds: fc.constantFrom("inclusive" as const, "exclusive" as const),
          concurrency: fc.constantFrom(1, 3, 9)
        }),
        async (c) => {
          const total = c.others + c.sizes.reduce((a, b) => a + b, 0)
          const generated = BillGenerator.generateContract({
            count: total,
            startMillis: t0,
            endMillis: t0 + 10 * day,
            seed: c.seed
          })
          // The first crowd at the window's first millisecond when `edge`, else inside it.
          const crowds = c.sizes.map((_, k) => (k === 0 && c.edge ? t0 : t0 + (3 + 4 * k) * day + 777))
          const firstCrowdEnd = c.others + (c.sizes[0] as number)
          const history = generated.map((bill, i) =>
            i < c.others ? bill : { ...bill, cTime: String(i < firstCrowdEnd ? crowds[0] : crowds[1]) }
          )
          const program = Effect.gen(function* () {
            yield* TestClock.setTime(t0 + 11 * day)
            const api = yield* BillsApi
            const got = [
              ...(yield* Stream.runCollect(api.streamContractBills({ from: t0, concurrency: c.concurrency })))
            ]
            const ids = got.map((bill) => bill.billId)
            expect(new Set(ids).size).toBe(ids.length)
            expect([...ids].sort()).toEqual(history.map((bill) => bill.billId).sort())
          }).pipe(
            Effect.provide(
              TestBillsApi.layerStack({
                apiVersion: "v3",
                exchange: { bills: { contract: history }, order: c.order, bounds: c.bounds },
                rateLimit: false
              })
            )
          )
          await Effect.runPromise(Effect.provide(program, TestContext.TestContext))
        }
      ),
      propertyParameters(40, 38)
    )
  }, 240_000)

  it.effect("v2 (no cursor): fails with BillsIncomplete naming the millisecond, and sends no cursor", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 11 * day)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const error = yield* Effect.flip(Stream.runCollect(api.streamContractBills({ from: t0, concurrency: 1 })))
      expect(error._tag).toBe("BillsIncomplete")
      expect(error._tag === "BillsIncomplete" ? error.millisecond : undefined).toBe(crowded)
      const requests = yield* contractRequests(exchange)
      expect(requests.some((r) => r.body.includes("nextKey"))).toBe(false)
    }).pipe(
      Effect.provide(
        TestBillsApi.layerStack({ apiVersion: "v2", exchange: { bills: { contract: bills } }, rateLimit: false })
      )
    )
  )

  // The exchange's v3 answers with the cursor cut out: the walk never relies on it.
  const withoutCursor = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(FakeExchange, (exchange) => {
      const inner = FakeExchange.httpClient(exchange)
      return HttpClient.make((request) =>
        Effect.gen(function* () {
          const response = yield* inner.execute(request)
          const text = yield* response.text
          const cut = text.replace(/,"nextKey":\{[^}]*\}/, "")
          return HttpClientResponse.fromWeb(
            request,
            new Response(cut, { status: response.status, headers: { "content-type": "application/json" } })
          )
        }).pipe(Effect.orDie)
      )
    })
  )
  it.effect("v3 answers without a cursor: fails with BillsIncomplete naming the millisecond", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 11 * day)
      const api = yield* BillsApi
      const error = yield* Effect.flip(Stream.runCollect(api.streamContractBills({ from: t0, concurrency: 1 })))
      expect(error._tag).toBe("BillsIncomplete")
      expect(error._tag === "BillsIncomplete" ? error.millisecond : undefined).toBe(crowded)
    }).pipe(
      Effect.provide(
        wrappedStack(withoutCursor, { apiVersion: "v3", bills: { contract: bills }, rateLimit: false }, "v3")
      )
    )
  )

  it.effect("contractBills checks the cursor: both fields or neither, and none on v2, before sending", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const half = yield* Effect.flip(api.contractBills({ nextKeyId: "736825748291061726" }))
      expect(half._tag).toBe("InvalidParams")
      expect(half.message).toContain("nextKeyTime")
      const notId = yield* Effect.flip(api.contractBills({ nextKeyId: "12a", nextKeyTime: 1 }))
      expect(notId._tag).toBe("InvalidParams")
      const onV2 = yield* Effect.flip(api.contractBills({ nextKeyId: "1", nextKeyTime: 1 }))
      expect(onV2._tag).toBe("InvalidParams")
      expect(onV2.message).toContain("v3")
      expect((yield* exchange.stats).contractBills.requests).toBe(0)
    }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion: "v2", rateLimit: false })))
  )
})
