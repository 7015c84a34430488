import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import {
  FakeExchange,
  type FakeExchangeOptions,
  type FakeExchangeService,
  type FundingWireBill,
  type SignedRequestOptions,
  type SpotWireBill,
  signedRequest
} from "../../src/testing/index.js"

const funding = (billId: string, cTime: number, coinId = 1, bizType = "deposit"): FundingWireBill => ({
  billId,
  coinId,
  coinName: coinId === 1 ? "USDT" : "BTC",
  bizType,
  deltaAmount: "1",
  afterAmount: "1",
  fees: "0",
  cTime: String(cTime),
  fillSize: null,
  fillValue: null
})

const spot = (billId: string, cTime: number, coinId = 1, bizType = "deposit"): SpotWireBill => ({
  billId,
  coinId,
  coinName: coinId === 1 ? "USDT" : "BTC",
  bizType,
  fillSize: "0",
  fillValue: "0",
  deltaAmount: "1",
  afterAmount: "1",
  fees: "0",
  cTime: String(cTime)
})

interface Answer {
  readonly status: number
  readonly code: string
  readonly msg: string
  readonly requestTime: number
  readonly data: unknown
}

interface FundingData {
  readonly total: number
  readonly page: number
  readonly pageSize: number
  readonly hasNextPage: boolean
  readonly items: ReadonlyArray<FundingWireBill>
}

const call = (exchange: FakeExchangeService, options: SignedRequestOptions) =>
  Effect.gen(function* () {
    const response = yield* exchange.handle(yield* signedRequest(options))
    if (response._tag !== "Response") return yield* Effect.dieMessage(`unexpected ${response._tag}`)
    return { status: response.status, ...(JSON.parse(response.body) as Omit<Answer, "status">) }
  })

const fundingPage = (exchange: FakeExchangeService, body: object) =>
  Effect.map(call(exchange, { operation: "fundingBills", body }), (answer) => {
    expect(answer.code).toBe("00000")
    return answer.data as FundingData
  })

const spotIds = (exchange: FakeExchangeService, body: object) =>
  Effect.map(call(exchange, { operation: "spotBills", body }), (answer) => {
    expect(answer.code).toBe("00000")
    return (answer.data as ReadonlyArray<SpotWireBill>).map((b) => b.billId)
  })

const withExchange = <A, E>(options: FakeExchangeOptions, f: (exchange: FakeExchangeService) => Effect.Effect<A, E>) =>
  Effect.flatMap(FakeExchange.make({ rateLimit: false, ...options }), f)

// 25 funding bills 1001..1025 at t = 1000, 2000, ...
const twentyFive = Array.from({ length: 25 }, (_, i) => funding(String(1001 + i), (i + 1) * 1000))

describe("FakeExchange funding pages", () => {
  it.effect("defaults to page 1 of 10, newest first, with total and hasNextPage", () =>
    withExchange({ bills: { funding: twentyFive } }, (exchange) =>
      Effect.gen(function* () {
        const answer = yield* call(exchange, { operation: "fundingBills", body: {} })
        expect(answer).toMatchObject({ status: 200, code: "00000", msg: "success", requestTime: 0 })
        const data = answer.data as FundingData
        expect(data).toMatchObject({ total: 25, page: 1, pageSize: 10, hasNextPage: true })
        expect(data.items.map((b) => b.billId)).toEqual(Array.from({ length: 10 }, (_, i) => String(1025 - i)))
      })
    )
  )

  it.effect("pages cover every bill once in both orders; hasNextPage false on the last page", () =>
    Effect.gen(function* () {
      for (const order of ["newest-first", "oldest-first"] as const) {
        yield* withExchange({ bills: { funding: twentyFive }, order }, (exchange) =>
          Effect.gen(function* () {
            const seen: Array<string> = []
            const flags: Array<boolean> = []
            for (let pageIndex = 1; pageIndex <= 4; pageIndex++) {
              const page = yield* fundingPage(exchange, { pageIndex, pageSize: 10 })
              expect(page.total).toBe(25)
              expect(page.page).toBe(pageIndex)
              flags.push(page.hasNextPage)
              seen.push(...page.items.map((b) => b.billId))
            }
            expect(flags).toEqual([true, true, false, false])
            const expected = twentyFive.map((b) => b.billId)
            expect(seen).toEqual(order === "oldest-first" ? expected : expected.slice().reverse())
            const exact = yield* fundingPage(exchange, { pageIndex: 5, pageSize: 5 })
            expect(exact.hasNextPage).toBe(false)
            expect(exact.items).toHaveLength(5)
          })
        )
      }
    })
  )

  it.effect("filters by coinId and bizType; total counts only matches", () =>
    withExchange(
      {
        bills: {
          funding: [
            funding("1", 10, 1, "deposit"),
            funding("2", 20, 2, "deposit"),
            funding("3", 30, 2, "withdraw"),
            funding("4", 40, 1, "airdrop_reward")
          ]
        },
        order: "oldest-first"
      },
      (exchange) =>
        Effect.gen(function* () {
          const byCoin = yield* fundingPage(exchange, { coinId: 2 })
          expect(byCoin.items.map((b) => b.billId)).toEqual(["2", "3"])
          expect(byCoin.total).toBe(2)
          const byType = yield* fundingPage(exchange, { bizType: "deposit" })
          expect(byType.items.map((b) => b.billId)).toEqual(["1", "2"])
          const both = yield* fundingPage(exchange, { coinId: 2, bizType: "withdraw", pageSize: 100 })
          expect(both.items.map((b) => b.billId)).toEqual(["3"])
          // Unlisted bizTypes come back unfiltered and filter as the listed ones do (assumed, see
          // docs/internals/biz-types.md); a value of another shape is a parameter error.
          const all = yield* fundingPage(exchange, {})
          expect(all.items.map((b) => b.bizType)).toContain("airdrop_reward")
          const byUnlisted = yield* fundingPage(exchange, { bizType: "airdrop_reward" })
          expect(byUnlisted.items.map((b) => b.billId)).toEqual(["4"])
          const bad = yield* call(exchange, { operation: "fundingBills", body: { bizType: "airdrop reward" } })
          expect([bad.status, bad.code]).toEqual([400, "40017"])
          const spotOnly = yield* fundingPage(exchange, { bizType: "trade_in" })
          expect(spotOnly.items).toEqual([])
        })
    )
  )

  it.effect("bounds are inclusive or exclusive at both ends", () =>
    Effect.gen(function* () {
      const bills = [funding("1", 100), funding("2", 200), funding("3", 300), funding("4", 400)]
      const window = { startTime: "100", endTime: "300", pageSize: 100 }
      const inclusive = yield* withExchange(
        { bills: { funding: bills }, bounds: "inclusive", order: "oldest-first" },
        (e) => fundingPage(e, window)
      )
      expect(inclusive.items.map((b) => b.billId)).toEqual(["1", "2", "3"])
      const exclusive = yield* withExchange(
        { bills: { funding: bills }, bounds: "exclusive", order: "oldest-first" },
        (e) => fundingPage(e, window)
      )
      expect(exclusive.items.map((b) => b.billId)).toEqual(["2"])
      expect(exclusive.total).toBe(1)
      // Equal bounds are allowed: one millisecond inclusive, nothing exclusive.
      const point = yield* withExchange({ bills: { funding: bills } }, (e) =>
        fundingPage(e, { startTime: 200, endTime: 200 })
      )
      expect(point.total).toBe(1)
    })
  )
})

describe("FakeExchange spot bills", () => {
  const sixteen = Array.from({ length: 16 }, (_, i) => spot(String(500 + i), 1000 + i * 10))

  it.effect("defaults to 10 records; limit up to 100", () =>
    withExchange({ bills: { spot: sixteen } }, (exchange) =>
      Effect.gen(function* () {
        expect(yield* spotIds(exchange, {})).toHaveLength(10)
        expect(yield* spotIds(exchange, { limit: 100 })).toHaveLength(16)
        expect(yield* spotIds(exchange, { limit: 1 })).toEqual(["515"])
      })
    )
  )

  it.effect("newest-first returns the newest `limit` of the window, oldest-first the oldest", () =>
    Effect.gen(function* () {
      const window = { after: "1020", before: "1100", limit: 3 }
      const newest = yield* withExchange({ bills: { spot: sixteen }, order: "newest-first" }, (e) => spotIds(e, window))
      expect(newest).toEqual(["510", "509", "508"])
      const oldest = yield* withExchange({ bills: { spot: sixteen }, order: "oldest-first" }, (e) => spotIds(e, window))
      expect(oldest).toEqual(["502", "503", "504"])
      const exclusive = yield* withExchange(
        { bills: { spot: sixteen }, order: "oldest-first", bounds: "exclusive" },
        (e) => spotIds(e, window)
      )
      expect(exclusive).toEqual(["503", "504", "505"])
    })
  )

  it.effect("ties in one millisecond are ordered by numeric billId within the order", () =>
    Effect.gen(function* () {
      const tied = [spot("100", 5), spot("99", 5), spot("736825748291061726", 5), spot("1000", 4), spot("7", 6)]
      const oldest = yield* withExchange({ bills: { spot: tied }, order: "oldest-first" }, (e) => spotIds(e, {}))
      expect(oldest).toEqual(["1000", "99", "100", "736825748291061726", "7"])
      const newest = yield* withExchange({ bills: { spot: tied }, order: "newest-first" }, (e) => spotIds(e, {}))
      expect(newest).toEqual(["7", "736825748291061726", "100", "99", "1000"])
    })
  )

  it.effect("filters by coinId and bizType", () =>
    withExchange(
      { bills: { spot: [spot("1", 1, 1, "trade_in"), spot("2", 2, 2, "trade_in"), spot("3", 3, 2, "trade_out")] } },
      (exchange) =>
        Effect.gen(function* () {
          expect(yield* spotIds(exchange, { coinId: 2 })).toEqual(["3", "2"])
          expect(yield* spotIds(exchange, { bizType: "trade_in" })).toEqual(["2", "1"])
          expect(yield* spotIds(exchange, { coinId: 1, bizType: "trade_out" })).toEqual([])
          expect(yield* spotIds(exchange, { bizType: "buy" })).toEqual([])
          const bad = yield* call(exchange, { operation: "spotBills", body: { bizType: "trade-in" } })
          expect(bad.code).toBe("40017")
        })
    )
  )
})

describe("FakeExchange parameter errors", () => {
  const cases: ReadonlyArray<readonly [string, SignedRequestOptions["operation"], string | object, string]> = [
    ["limit 101", "spotBills", { limit: 101 }, "40017"],
    ["limit 0", "spotBills", { limit: 0 }, "40017"],
    ["limit as string", "spotBills", { limit: "10" }, "40017"],
    ["limit 1.5", "spotBills", { limit: 1.5 }, "40017"],
    ["pageSize 101", "fundingBills", { pageSize: 101 }, "40017"],
    ["pageIndex 0", "fundingBills", { pageIndex: 0 }, "40017"],
    ["coinId as string", "fundingBills", { coinId: "1" }, "40017"],
    ["non-digit time", "fundingBills", { startTime: "2025-01-01" }, "40017"],
    ["negative time", "spotBills", { after: -1 }, "40017"],
    ["bad JSON", "spotBills", "{limit:", "40017"],
    ["empty body", "spotBills", "", "40017"],
    ["array body", "fundingBills", "[]", "40017"],
    ["start after end (funding)", "fundingBills", { startTime: "2000", endTime: "1000" }, "40707"],
    ["start after end (spot)", "spotBills", { after: 2000, before: 1000 }, "40707"]
  ]
  for (const [name, operation, body, code] of cases) {
    it.effect(`${name} -> HTTP 400 ${code}`, () =>
      withExchange({}, (exchange) =>
        Effect.gen(function* () {
          const answer = yield* call(exchange, { operation, body })
          expect([answer.status, answer.code, answer.data]).toEqual([400, code, null])
          expect(answer.msg.length).toBeGreaterThan(0)
        })
      )
    )
  }

  it.effect("accepts times as JSON numbers, nulls as absent, and ignores unknown fields", () =>
    withExchange({ bills: { spot: [spot("1", 1500)] } }, (exchange) =>
      Effect.gen(function* () {
        expect(yield* spotIds(exchange, { after: 1000, before: "2000", coinId: null, extra: true })).toEqual(["1"])
      })
    )
  )

  it.effect("a start bound older than lookbackMillis -> 40704", () =>
    withExchange({ lookbackMillis: 1000 }, (exchange) =>
      Effect.gen(function* () {
        yield* TestClock.adjust(5000)
        const old = yield* call(exchange, { operation: "spotBills", body: { after: "3999" }, timestamp: 5000 })
        expect([old.status, old.code]).toEqual([400, "40704"])
        const recent = yield* call(exchange, { operation: "spotBills", body: { after: "4000" }, timestamp: 5000 })
        expect(recent.code).toBe("00000")
      })
    )
  )

  it.effect("unknown paths 404, wrong methods 405", () =>
    withExchange({}, (exchange) =>
      Effect.gen(function* () {
        const notFound = yield* exchange.handle({
          method: "POST",
          path: "/api/v2/nope",
          query: "",
          headers: {},
          body: ""
        })
        expect(notFound).toMatchObject({ _tag: "Response", status: 404 })
        const get = yield* call(exchange, { operation: "spotBills", method: "GET" })
        expect([get.status, get.code]).toEqual([405, "40405"])
      })
    )
  )
})

describe("FakeExchange server time", () => {
  it.effect("GET /api/v2/public/time answers the clock plus offset, without auth", () =>
    withExchange({ clockOffsetMillis: 250 }, (exchange) =>
      Effect.gen(function* () {
        yield* TestClock.adjust(1000)
        const response = yield* exchange.handle({
          method: "GET",
          path: "/api/v2/public/time",
          query: "",
          headers: {},
          body: ""
        })
        if (response._tag !== "Response") return yield* Effect.dieMessage("no response")
        expect(JSON.parse(response.body)).toEqual({ code: "00000", msg: "success", requestTime: 1250, data: 1250 })
        yield* exchange.setClockOffset(-1000)
        expect(yield* exchange.serverTime).toBe(0)
        expect((yield* exchange.stats).serverTimeRequests).toBe(1)
      })
    )
  )
})
