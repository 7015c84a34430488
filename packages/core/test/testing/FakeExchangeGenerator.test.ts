import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import {
  BillGenerator,
  compareWireBills,
  FakeExchange,
  type FakeExchangeService,
  type FundingWireBill,
  signedRequest,
  type SpotWireBill,
  type WireBill
} from "../../src/testing/index.js"
import { expectExactChains } from "../support/balanceChains.js"

const generate = { seed: 42, funding: 5000, spot: 5000, startMillis: 1_700_000_000_000, endMillis: 1_700_086_400_000 }

describe("BillGenerator", () => {
  it.effect("the same seed gives identical bills; another seed does not", () =>
    Effect.gen(function* () {
      const a = yield* FakeExchange.make({ generate })
      const b = yield* FakeExchange.make({ generate })
      const c = yield* FakeExchange.make({ generate: { ...generate, seed: 43 } })
      for (const account of ["funding", "spot"] as const) {
        const bills = yield* a.bills(account)
        expect(bills).toHaveLength(5000)
        expect(yield* b.bills(account)).toEqual(bills)
        expect(yield* c.bills(account)).not.toEqual(bills)
      }
    })
  )

  it.effect("bills are realistic: sorted, unique large ids, times in span, varied decimals and bizTypes", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ generate })
      const ids = new Set<string>()
      for (const account of ["funding", "spot"] as const) {
        const bills = yield* exchange.bills(account)
        for (let i = 1; i < bills.length; i++) {
          expect(compareWireBills(bills[i - 1] as WireBill, bills[i] as WireBill)).toBeLessThan(0)
        }
        for (const bill of bills) {
          expect(bill.billId).toMatch(/^\d+$/)
          expect(BigInt(bill.billId) > 2n ** 53n).toBe(true)
          ids.add(bill.billId)
          expect(bill.cTime).toMatch(/^\d+$/)
          expect(Number(bill.cTime)).toBeGreaterThanOrEqual(generate.startMillis)
          expect(Number(bill.cTime)).toBeLessThanOrEqual(generate.endMillis)
        }
        const decimals = new Set(bills.map((b) => b.deltaAmount.split(".")[1]?.length ?? 0))
        expect(decimals.size).toBeGreaterThan(4)
        const bizTypes = new Set(bills.map((b) => b.bizType))
        for (const unlisted of BillGenerator.unlistedBizTypes) expect(bizTypes).toContain(unlisted)
        expect(bills.some((b) => b.deltaAmount.startsWith("-"))).toBe(true)
      }
      expect(ids.size).toBe(10_000)
      const fundingBill = (yield* exchange.bills("funding"))[0] as FundingWireBill
      expect([fundingBill.fillSize, fundingBill.fillValue]).toEqual([null, null])
      expect(Object.keys((yield* exchange.bills("spot"))[0] ?? {})).toEqual([
        "billId",
        "coinId",
        "coinName",
        "bizType",
        "fillSize",
        "fillValue",
        "deltaAmount",
        "afterAmount",
        "fees",
        "cTime"
      ])
    })
  )

  it.effect("balances chain exactly per account and coin (BigDecimal)", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ generate })
      expectExactChains(yield* exchange.bills("funding"))
      expectExactChains(yield* exchange.bills("spot"))
    })
  )

  it.effect("groups bills in one millisecond when asked", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({
        generate: { ...generate, sameMillisecondGroup: { every: 1000, size: 150 } }
      })
      const perMillisecond = new Map<string, number>()
      for (const bill of yield* exchange.bills("spot")) {
        perMillisecond.set(bill.cTime, (perMillisecond.get(bill.cTime) ?? 0) + 1)
      }
      const big = [...perMillisecond.values()].filter((n) => n >= 150)
      expect(big).toHaveLength(5)
    })
  )

  it("formatFixed never uses exponent notation", () => {
    expect(BillGenerator.formatFixed(BigDecimal.make(1n, 30), 30)).toBe(`0.${"0".repeat(29)}1`)
    expect(BillGenerator.formatFixed(BigDecimal.make(-2500n, 1), 1)).toBe("-250.0")
    expect(BillGenerator.formatFixed(BigDecimal.make(15n, 1), 4)).toBe("1.5000")
    expect(BillGenerator.formatFixed(BigDecimal.make(7n, 0), 0)).toBe("7")
  })

  it.effect("linked books with a futures account move every transferred coin exactly once", () =>
    Effect.gen(function* () {
      // A linked transfer has both legs in funding and spot; a futures leg for it as well would
      // make the coins appear twice. Summed over the three accounts, transfers net to zero.
      const exchange = yield* FakeExchange.make({
        generate: { ...generate, funding: 600, spot: 600, contract: 300, linked: true }
      })
      const contract = yield* exchange.contractBills
      expect(contract.length).toBeGreaterThanOrEqual(300)
      const net = new Map<string, BigDecimal.BigDecimal>()
      const add = (coin: string, delta: string) =>
        net.set(coin, BigDecimal.sum(net.get(coin) ?? BigDecimal.fromBigInt(0n), BigDecimal.unsafeFromString(delta)))
      const isTransfer = (bizType: string) => bizType === "transfer_in" || bizType === "transfer_out"
      for (const account of ["funding", "spot"] as const) {
        for (const bill of yield* exchange.bills(account))
          if (isTransfer(bill.bizType)) add(bill.coinName, bill.deltaAmount)
      }
      for (const bill of contract) if (isTransfer(bill.bizType)) add(bill.coinName, bill.deltaAmount)
      expect(net.size).toBeGreaterThan(0)
      for (const [coin, amount] of net) expect([coin, BigDecimal.isZero(amount)]).toEqual([coin, true])
    })
  )
})

const walkFunding = (exchange: FakeExchangeService, body: object, onPage: (page: number) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const seen: Array<FundingWireBill> = []
    for (let pageIndex = 1; ; pageIndex++) {
      const response = yield* exchange.handle(
        yield* signedRequest({ operation: "fundingBills", body: { ...body, pageIndex, pageSize: 100 } })
      )
      if (response._tag !== "Response") return yield* Effect.dieMessage("no response")
      const data = JSON.parse(response.body).data as {
        hasNextPage: boolean
        items: ReadonlyArray<FundingWireBill>
      }
      seen.push(...data.items)
      yield* onPage(pageIndex)
      if (!data.hasNextPage) return seen
    }
  })

describe("FakeExchange over many bills", () => {
  it.effect("a 20,000-bill walk of 200 pages returns every bill once", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({
        rateLimit: false,
        generate: { ...generate, funding: 20_000, spot: 0 }
      })
      const seen = yield* walkFunding(exchange, {}, () => Effect.void)
      expect(seen).toHaveLength(20_000)
      expect(new Set(seen.map((b) => b.billId)).size).toBe(20_000)
      expect((yield* exchange.stats).fundingBills.succeeded).toBe(200)
    })
  )

  it.effect("bills appended mid-walk come after the last ones and keep the chains exact", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({
        rateLimit: false,
        order: "oldest-first",
        generate: { ...generate, funding: 1000, spot: 0 }
      })
      const last = (yield* exchange.bills("funding")).at(-1) as FundingWireBill
      const pinned = { endTime: last.cTime }
      const appended: Array<WireBill> = []
      const seen = yield* walkFunding(exchange, pinned, (page) =>
        page === 3
          ? Effect.map(exchange.appendGenerated("funding", 250), (bills) => {
              appended.push(...bills)
            })
          : Effect.void
      )
      // The pinned window still holds exactly the original bills; same-millisecond appends may join it.
      const inWindow = appended.filter((b) => b.cTime === last.cTime).length
      expect(seen).toHaveLength(1000 + inWindow)
      expect(appended).toHaveLength(250)
      for (const bill of appended) expect(compareWireBills(bill, last)).toBeGreaterThan(0)
      const all = yield* exchange.bills("funding")
      expect(all).toHaveLength(1250)
      expectExactChains(all)
      const unpinned = yield* walkFunding(exchange, {}, () => Effect.void)
      expect(unpinned.map((b) => b.billId)).toEqual(all.map((b) => b.billId))
    })
  )

  it.effect("hand-made appends are visible and filtered views stay current", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ rateLimit: false, generate: { ...generate, funding: 0, spot: 300 } })
      const query = (body: object) =>
        Effect.gen(function* () {
          const response = yield* exchange.handle(yield* signedRequest({ operation: "spotBills", body }))
          return response._tag === "Response" ? (JSON.parse(response.body).data as ReadonlyArray<SpotWireBill>) : []
        })
      const before = yield* query({ coinId: 2, limit: 100 })
      const bill: SpotWireBill = {
        ...(before[0] as SpotWireBill),
        billId: "999999999999999999999",
        cTime: "1800000000000"
      }
      yield* exchange.append("spot", [bill])
      const after = yield* query({ coinId: 2, limit: 100 })
      expect(after[0]?.billId).toBe("999999999999999999999")
      // An out-of-order append lands in its place.
      yield* exchange.append("spot", [{ ...bill, billId: "5", cTime: "1" }])
      const oldest = yield* exchange.bills("spot")
      expect(oldest[0]?.billId).toBe("5")
      expect((yield* query({ coinId: 2, before: "1", limit: 100 })).map((b) => b.billId)).toEqual(["5"])
    })
  )
})
