/**
 * One contract call: the fake exchange's strict rules (it refuses what the docs refuse), the
 * client's checks before sending (bad input fails with `InvalidParams` and nothing is sent), the
 * id above 2^53 sent as a bare number, both interface versions.
 */
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi, contractMaxSpanMillis } from "../../src/index.js"
import { exactNumbers } from "../../src/internal/exactNumbers.js"
import {
  type ContractWireBill,
  FakeExchange,
  type FakeResponse,
  signedRequest,
  TestBillsApi
} from "../../src/testing/index.js"
import { apiVersions } from "../support/fakeStack.js"

const day = 86_400_000
const t0 = Date.UTC(2025, 0, 1)

const bill = (n: number, fields: Partial<ContractWireBill> = {}): ContractWireBill => ({
  billId: String(736825748291061726n + BigInt(n)),
  coinName: "USDT",
  symbol: "cmt_btcusdt",
  bizType: "position_close_long",
  deltaAmount: "1.50",
  afterAmount: String(100 + n),
  fees: "0.01",
  cTime: String(t0 + n * 1000),
  transferReason: null,
  ...fields
})

const bodyOf = (response: FakeResponse) => (response._tag === "Response" ? response.body : "")
const statusOf = (response: FakeResponse) => (response._tag === "Response" ? response.status : 0)

describe("the fake exchange's contract rules", () => {
  for (const apiVersion of apiVersions) {
    const names = apiVersion === "v3" ? { asset: "asset", type: "incomeType" } : { asset: "coin", type: "businessType" }
    const refused = (body: object) =>
      Effect.gen(function* () {
        const exchange = yield* FakeExchange.make({ apiVersion, bills: { contract: [bill(0)] }, rateLimit: false })
        const response = yield* exchange.handle(yield* signedRequest({ operation: "contractBills", apiVersion, body }))
        return { status: statusOf(response), body: bodyOf(response) }
      })

    it.effect(`${apiVersion}: refuses one bound without the other, a span over 100 days, a limit over 100`, () =>
      Effect.gen(function* () {
        const code = apiVersion === "v3" ? "-1140" : '"40017"'
        for (const body of [
          { startTime: t0 },
          { endTime: t0 },
          { startTime: t0, endTime: t0 + contractMaxSpanMillis + 1 },
          { limit: 101 },
          { limit: 0 },
          { [names.type]: "not a type" },
          apiVersion === "v3" ? { coin: "USDT" } : { asset: "USDT" },
          ...(apiVersion === "v3" ? [{ nextKeyId: "1" }] : [])
        ]) {
          const answer = yield* refused(body)
          expect(answer.status, JSON.stringify(body)).toBe(400)
          expect(answer.body).toContain(`"code":${code}`)
        }
        const startAfterEnd = yield* refused({ startTime: t0 + 1, endTime: t0 })
        expect(startAfterEnd.body).toContain(apiVersion === "v3" ? "-1171" : "40707")
        // Exactly 100 days is accepted.
        const widest = yield* refused({ startTime: t0, endTime: t0 + contractMaxSpanMillis, [names.asset]: "USDT" })
        expect(widest.status).toBe(200)
      })
    )
  }

  it.effect("v3 answers {hasNextPage, items, nextKey} and continues after the key", () =>
    Effect.gen(function* () {
      const bills = [0, 1, 2, 3, 4].map((n) => bill(n))
      const exchange = yield* FakeExchange.make({ apiVersion: "v3", bills: { contract: bills }, rateLimit: false })
      const ask = (body: object) =>
        Effect.map(
          Effect.flatMap(signedRequest({ operation: "contractBills", apiVersion: "v3", body }), exchange.handle),
          (response) => JSON.parse(exactNumbers(bodyOf(response)))
        )
      const first = yield* ask({ limit: 2 })
      expect(first.hasNextPage).toBe(true)
      expect(first.items.map((item: { billId: string }) => String(item.billId))).toEqual([
        bills[4]?.billId,
        bills[3]?.billId
      ])
      const next = yield* ask({ limit: 2, nextKeyId: first.nextKey.nextKeyId, nextKeyTime: first.nextKey.nextKeyTime })
      expect(next.items.map((item: { billId: string }) => String(item.billId))).toEqual([
        bills[2]?.billId,
        bills[1]?.billId
      ])
      const last = yield* ask({ limit: 2, nextKeyId: next.nextKey.nextKeyId, nextKeyTime: next.nextKey.nextKeyTime })
      expect(last.hasNextPage).toBe(false)
      expect(last.nextKey).toBeUndefined()
      expect(last.items).toHaveLength(1)
    })
  )
})

describe("BillsApi.contractBills", () => {
  for (const apiVersion of apiVersions) {
    it.effect(`${apiVersion}: an id above 2^53 sent as a JSON number keeps every digit, decoded and raw`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(t0 + 10 * day)
        const api = yield* BillsApi
        const page = yield* api.contractBills()
        const [first] = page.items
        expect(first?.billId).toBe("736825748291061726")
        expect(first?.raw.billId).toBe("736825748291061726")
        expect(first?.coinName).toBe("USDT")
        expect(first?.bizType).toBe("position_close_long")
        expect(first?.symbol).toEqual(Option.some("cmt_btcusdt"))
        expect(first?.transferReason).toEqual(Option.none())
        expect(DateTime.toEpochMillis(first?.cTime ?? DateTime.unsafeMake(0))).toBe(t0)
        expect(first?.raw[apiVersion === "v3" ? "income" : "amount"]).toBe("1.50")
      }).pipe(
        Effect.provide(
          TestBillsApi.layerStack({
            apiVersion,
            exchange: { bills: { contract: [bill(0)] }, contractNumericIds: "all" },
            rateLimit: false
          })
        )
      )
    )

    it.effect(`${apiVersion}: bad input fails with InvalidParams and nothing is sent`, () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        for (const params of [
          { startTime: t0 },
          { endTime: t0 },
          { startTime: t0, endTime: t0 + contractMaxSpanMillis + 1 },
          { startTime: t0 + 1, endTime: t0 },
          { limit: 0 },
          { limit: 101 },
          { asset: "" }
        ]) {
          const error = yield* Effect.flip(api.contractBills(params))
          expect(error._tag, JSON.stringify(params)).toBe("InvalidParams")
          expect(error.message).toContain("contractBills")
        }
        const stats = yield* exchange.stats
        expect(stats.contractBills.requests).toBe(0)
        // Exactly 100 days, both bounds: sent.
        yield* api.contractBills({ startTime: t0, endTime: t0 + contractMaxSpanMillis, limit: 100 })
        expect((yield* exchange.stats).contractBills.requests).toBe(1)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: {}, rateLimit: false })))
    )

    // Mutation in internal/contractStream.ts: the walk's operation name emptied (`startWalk("", ...)`).
    it.effect(`${apiVersion}: a walk of a bad query fails naming the futures operation, nothing sent`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(t0 + day)
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        for (const query of [{ from: t0 + 2 * day }, { from: t0, to: t0 - 1 }, { asset: "" }]) {
          const error = yield* Effect.flip(Stream.runDrain(api.streamContractBills(query)))
          expect(error._tag, JSON.stringify(query)).toBe("InvalidParams")
          expect(error._tag === "InvalidParams" && error.operation, JSON.stringify(query)).toBe("contractBills")
        }
        expect((yield* exchange.stats).contractBills.requests).toBe(0)
      }).pipe(Effect.provide(TestBillsApi.layerStack({ apiVersion, exchange: {}, rateLimit: false })))
    )
  }
})
