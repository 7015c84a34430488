import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as fc from "fast-check"
import { BillsApi } from "../../src/index.js"
import {
  type Account,
  BillBook,
  compareWireBills,
  FakeExchange,
  LazyBillBook,
  type WireBill
} from "../../src/testing/index.js"
import { expectExactChains } from "../support/balanceChains.js"
import { fakeStack } from "../support/fakeStack.js"

const startMillis = 1_700_000_000_000

/** Outflows, and only outflows, carry a minus sign. */
const signFollowsBizType = (bill: WireBill) =>
  expect(bill.deltaAmount.startsWith("-")).toBe(
    ["withdraw", "transfer_out", "sell", "c2c_sell", "trade_out"].includes(bill.bizType)
  )

describe("LazyBillBook", () => {
  for (const account of ["funding", "spot"] as const satisfies ReadonlyArray<Account>) {
    it(`${account}: bills are sorted, unique, in span, and their balances chain exactly`, () => {
      const book = LazyBillBook.make(account, { count: 3000, startMillis, endMillis: startMillis + 86_400_000 })
      const bills = book.all()
      expect(bills).toHaveLength(3000)
      expect(book.size()).toBe(3000)
      expect(book.last()).toEqual(bills[2999])
      for (let i = 1; i < bills.length; i++) {
        const [a, b] = [bills[i - 1] as WireBill, bills[i] as WireBill]
        expect(Number(b.cTime)).toBeGreaterThan(Number(a.cTime))
        expect(BigInt(b.billId) > BigInt(a.billId)).toBe(true)
      }
      expect(BigInt((bills[0] as WireBill).billId) > 2n ** 53n).toBe(true)
      expect(Number((bills[0] as WireBill).cTime)).toBeGreaterThanOrEqual(startMillis)
      expect(Number((bills[2999] as WireBill).cTime)).toBeLessThanOrEqual(startMillis + 86_400_000)
      expectExactChains(bills, signFollowsBizType)
      expect(new Set(bills.map((bill) => bill.bizType)).size).toBeGreaterThan(5)
      // Computing a bill twice gives the same bill.
      expect(book.at(1234)).toEqual(bills[1234])
    })
  }

  it("answers every query exactly like an eager book of the same bills", () => {
    const step = 37
    const count = 800
    const lazy = LazyBillBook.make("spot", { count, startMillis, endMillis: startMillis + count * step - 1, seed: 9 })
    const eager = BillBook.make(lazy.all())
    const time = fc.integer({ min: startMillis - 100, max: startMillis + count * step + 100 })
    fc.assert(
      fc.property(
        fc.record({
          coinId: fc.option(fc.constantFrom(1, 2, 3, 7, 99), { nil: undefined }),
          bizType: fc.option(fc.constantFrom("deposit", "trade_out", "airdrop_reward"), { nil: undefined, freq: 3 }),
          start: fc.option(time, { nil: undefined }),
          end: fc.option(time, { nil: undefined }),
          bounds: fc.constantFrom("inclusive" as const, "exclusive" as const)
        }),
        fc.constantFrom("newest-first" as const, "oldest-first" as const),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 100 }),
        (query, order, offset, limit) => {
          const a = lazy.slice(query, order, offset, limit)
          const b = eager.slice(query, order, offset, limit)
          expect(a.items).toEqual(b.items)
          expect(a.total).toBe(b.total)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("becomes an eager book on insert, keeping every bill", () => {
    const book = LazyBillBook.make("spot", { count: 50, startMillis, endMillis: startMillis + 49_999 })
    const before = book.all()
    const late = { ...(before[49] as WireBill), billId: "999999999999999999999", cTime: String(startMillis + 60_000) }
    book.insert([late as (typeof before)[number]])
    expect(book.size()).toBe(51)
    expect(book.all()).toEqual([...before, late])
    expect(book.slice({ bounds: "inclusive" }, "newest-first", 0, 1).items).toEqual([late])
  })

  it.effect("a lazy fake exchange serves the real client every bill, and appends continue its balances", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      const api = yield* BillsApi
      yield* TestClock.setTime(3_000_000)
      yield* exchange.appendGenerated("spot", 200)
      yield* TestClock.setTime(4_000_000)
      const expected = yield* exchange.bills("spot")
      expect(expected).toHaveLength(2700)
      expectExactChains(expected, signFollowsBizType)
      const streamed = yield* Stream.runCollect(api.streamSpotBills({ from: 0, to: Number.MAX_SAFE_INTEGER }))
      expect([...streamed].map((bill) => bill.raw as unknown as WireBill).sort(compareWireBills)).toEqual(expected)
    }).pipe(
      Effect.provide(
        fakeStack({
          rateLimit: false,
          exchange: {
            rateLimit: false,
            generate: { lazy: true, spot: 2500, funding: 10, startMillis: 1_000, endMillis: 2_500_000 }
          }
        })
      )
    )
  )
})
