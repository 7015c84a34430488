/**
 * The funding walk's read-ahead (concurrency on): pages are fetched before the page ahead of
 * them has been stepped through, so a bill booked in between can leave a page fetched ahead
 * older than the page before it. Such a page must be fetched again, not trusted, and not make
 * the walk fail.
 */
import { describe, expect, it } from "@effect/vitest"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { FakeExchange, type FundingWireBill } from "../../src/testing/index.js"
import { fundingBills, lateFundingBill } from "../support/billScenarios.js"
import { runOnTestClock } from "../support/fakeStack.js"
import { collect, expectExactly } from "../support/streamCheck.js"
import { wrappedStack } from "../support/wrappedStack.js"

const orders = ["newest-first", "oldest-first"] as const

const bills = fundingBills({ seed: 13, count: 1000, maxGroup: 3, maxGap: 5 })

/**
 * The fake exchange behind an HttpClient that holds the first request for page 2 back for
 * 100 ms and books `late` just before passing it on: pages 3 and beyond, fetched ahead at the
 * same time, are answered at once and so come from before the booking, page 2 from after it.
 */
const delayedPageTwo = (late: FundingWireBill) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      const inner = FakeExchange.httpClient(exchange)
      let held = false
      return HttpClient.make((request) =>
        Effect.gen(function* () {
          const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          if (!held && body.includes('"pageIndex":2,')) {
            held = true
            yield* Effect.sleep(100)
            yield* exchange.append("funding", [late])
          }
          return yield* inner.execute(request)
        })
      )
    })
  )

const stack = (order: (typeof orders)[number], late: FundingWireBill) =>
  wrappedStack(delayedPageTwo(late), { bills: { funding: bills }, order, rateLimit: false })

describe("funding read-ahead", () => {
  for (const order of orders) {
    it.effect(`a page fetched ahead that no longer fits the page before is fetched again (${order})`, () => {
      // Booked among the bills of page 1, which the walk has read: every later bill moves one
      // place down, so the pages fetched before the booking start one bill too early.
      const inPageOne = order === "newest-first" ? bills[bills.length - 50] : bills[50]
      const late = lateFundingBill(1, Number(inPageOne?.cTime))
      return Effect.gen(function* () {
        yield* TestClock.setTime(Number(bills[bills.length - 1]?.cTime) + 1)
        const api = yield* BillsApi
        const exit = yield* runOnTestClock(collect(api.streamFundingBills({ concurrency: 8 })), 10)
        const result = Exit.isSuccess(exit) ? exit.value : undefined
        expect(result !== undefined && Exit.isSuccess(result.exit)).toBe(true)
        // Every bill of the window as it stood, once; the late one at most once.
        expectExactly(result?.bills ?? [], bills, [late])
        // The pages fetched ahead before the booking were fetched again after it.
        const exchange = yield* FakeExchange
        const pageIndices = (yield* exchange.requests)
          .filter((entry) => entry.operation === "fundingBills")
          .map((entry) => (entry.params as { readonly pageIndex: number }).pageIndex)
        expect(pageIndices.filter((index) => index === 3)).toHaveLength(2)
        expect(pageIndices.filter((index) => index === 2)).toHaveLength(1)
      }).pipe(Effect.provide(stack(order, late)))
    })
  }
})

/**
 * The fake exchange behind an HttpClient that answers every request 100 ms late and counts the
 * page requests in flight at once, and the most there ever were.
 */
const counted = () => {
  const seen = { now: 0, most: 0 }
  const layer = Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      const inner = FakeExchange.httpClient(yield* FakeExchange)
      return HttpClient.make((request) =>
        Effect.gen(function* () {
          seen.now++
          seen.most = Math.max(seen.most, seen.now)
          yield* Effect.sleep(100)
          return yield* inner.execute(request)
        }).pipe(Effect.ensuring(Effect.sync(() => seen.now--)))
      )
    })
  )
  return { seen, layer }
}

const countedStack = (
  funding: ReadonlyArray<FundingWireBill>,
  client: Layer.Layer<HttpClient.HttpClient, never, FakeExchange>
) => wrappedStack(client, { bills: { funding }, rateLimit: false })

describe("funding read-ahead: how many pages are in flight", () => {
  // [bills, concurrency, pages in flight at most]: every page the total promises, up to
  // `concurrency`; 250 bills make three pages, of which two come after the first.
  const cases = [
    [250, 9, 2],
    [1000, 4, 4],
    [1000, 1, 1]
  ] as const
  for (const [count, concurrency, most] of cases) {
    it.effect(`${count} bills at concurrency ${concurrency}: ${most} at most, each page fetched once`, () => {
      const some = bills.slice(0, count)
      const { seen, layer } = counted()
      return Effect.gen(function* () {
        yield* TestClock.setTime(Number(some[some.length - 1]?.cTime) + 1)
        const api = yield* BillsApi
        const exit = yield* runOnTestClock(collect(api.streamFundingBills({ concurrency })), 10)
        const result = Exit.isSuccess(exit) ? exit.value : undefined
        expect(result !== undefined && Exit.isSuccess(result.exit)).toBe(true)
        expectExactly(result?.bills ?? [], some)
        expect(seen.most).toBe(most)
        const exchange = yield* FakeExchange
        const pageIndices = (yield* exchange.requests)
          .filter((entry) => entry.operation === "fundingBills")
          .map((entry) => (entry.params as { readonly pageIndex: number }).pageIndex)
        // Fetched together, they arrive in any order.
        expect([...pageIndices].sort((a, b) => a - b)).toEqual(
          Array.from({ length: Math.ceil(count / 100) }, (_, i) => i + 1)
        )
      }).pipe(Effect.provide(countedStack(some, layer)))
    })
  }
})
