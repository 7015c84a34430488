/**
 * The exchange's history rule inside the walks: it serves 90 days of a longer history (and may
 * refuse wide windows too), refusing with `HistoryLimit`. A walk with no `from` ends well with
 * every bill served; a `from` older than the horizon is clipped and the pages say from where; a
 * cursor left behind by the horizon resumes clipped. The rule costs a few requests.
 */
import { describe, expect, it } from "@effect/vitest"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { type ApiVersion, BillsApi, type FundingPage, type SpotPage } from "../../src/index.js"
import { FakeExchange, type FakeExchangeOptions, type WireBill } from "../../src/testing/index.js"
import { lateFundingBill } from "../support/billScenarios.js"
import { apiVersions, fakeStack, runOnTestClock } from "../support/fakeStack.js"
import { expectExactly } from "../support/streamCheck.js"
import { wrappedStack } from "../support/wrappedStack.js"

const day = 86_400_000
const now = Date.UTC(2025, 6, 1)
const lookbackMillis = 90 * day

/** 180 days of history up to `now`, served 90 days back, `latency` ms away. */
const stack = (latency: number, rules: Partial<FakeExchangeOptions>, apiVersion: ApiVersion = "v2") =>
  fakeStack({
    apiVersion,
    exchange: {
      generate: { funding: 1500, spot: 3000, startMillis: now - 180 * day, endMillis: now - 1, seed: 7 },
      ...(latency === 0 ? {} : { latency: { millis: latency } }),
      ...rules
    }
  })

type AnyPage = FundingPage | SpotPage

/** Every page of `pages`, the TestClock moved along, and the requests the fake saw. */
const run = <P extends AnyPage>(pages: Stream.Stream<P, unknown, BillsApi>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const exit = yield* runOnTestClock(Stream.runCollect(pages), 100)
    if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the walk failed: ${String(exit.cause)}`)
    const exchange = yield* FakeExchange
    const requests = (yield* exchange.requests).filter((r) => r.operation !== "serverTime").length
    const end = yield* TestClock.currentTimeMillis
    return { pages: Chunk.toReadonlyArray(exit.value), requests, end }
  })

/** Every bill at or after the walk's served start exactly once; older ones at most once. */
const expectServed = (
  pages: ReadonlyArray<AnyPage>,
  all: ReadonlyArray<WireBill>,
  from: number | undefined,
  end: number
) => {
  const last = pages[pages.length - 1]
  const servedFrom = last?.servedFrom === undefined ? (from ?? 0) : DateTime.toEpochMillis(last.servedFrom)
  // Clipped no later than the horizon at the end of the walk, give or take the hint's margin.
  expect(servedFrom).toBeLessThanOrEqual(end - lookbackMillis + 60_001)
  const inWindow = all.filter((bill) => Number(bill.cTime) >= (from ?? 0))
  const expected = inWindow.filter((bill) => Number(bill.cTime) >= servedFrom)
  const older = inWindow.filter((bill) => Number(bill.cTime) < servedFrom)
  expectExactly(
    pages.flatMap((page) => page.bills),
    expected,
    older
  )
  return servedFrom
}

const cases = [
  { name: "a 90-day horizon", rules: { lookbackMillis } },
  { name: "a 90-day horizon and a 30-day width", rules: { lookbackMillis, maxWindowMillis: 30 * day } }
] as const

describe("the walks and the exchange's history horizon", () => {
  for (const apiVersion of apiVersions) {
    for (const latency of [0, 150]) {
      for (const { name, rules } of cases) {
        it.effect(`spot with no from ends well with every bill served (${name}, ${latency} ms, ${apiVersion})`, () =>
          Effect.gen(function* () {
            const api = yield* BillsApi
            const { pages, requests, end } = yield* run(api.streamSpotPages())
            const all = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("spot"))
            expectServed(pages, all, undefined, end)
            // 3,000 bills take 30 requests and a few for the pool's cuts; the rule costs a few more.
            expect(requests).toBeLessThanOrEqual(60)
          }).pipe(Effect.provide(stack(latency, rules, apiVersion)))
        )

        it.effect(`funding with no from ends well with every bill served (${name}, ${latency} ms, ${apiVersion})`, () =>
          Effect.gen(function* () {
            const api = yield* BillsApi
            const { pages, requests, end } = yield* run(api.streamFundingPages())
            const all = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("funding"))
            expectServed(pages, all, undefined, end)
            expect(requests).toBeLessThanOrEqual(40)
          }).pipe(Effect.provide(stack(latency, rules, apiVersion)))
        )

        it.effect(
          `a from older than the horizon is clipped, and every page after says so (${name}, ${latency} ms, ${apiVersion})`,
          () =>
            Effect.gen(function* () {
              const api = yield* BillsApi
              const from = Date.UTC(2020, 0, 1)
              const spot = yield* run(api.streamSpotPages({ from }))
              const all = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("spot"))
              const servedFrom = expectServed(spot.pages, all, from, spot.end)
              expect(servedFrom).toBeGreaterThan(now - lookbackMillis)
              for (const page of spot.pages) expect(page.servedFrom).toBeDefined()
              const funding = yield* run(api.streamFundingPages({ from }))
              const allFunding = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("funding"))
              expectServed(funding.pages, allFunding, from, funding.end)
              for (const page of funding.pages) expect(page.servedFrom).toBeDefined()
            }).pipe(Effect.provide(stack(latency, rules, apiVersion)))
        )
      }
    }
  }

  it.effect("a width limit alone: a walk reads every bill of its window, in parts", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      // No horizon: with no from, the walk would read 30-day parts back to 1970.
      const from = now - 200 * day
      const spot = yield* run(api.streamSpotPages({ from }))
      const all = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("spot"))
      expectExactly(
        spot.pages.flatMap((page) => page.bills),
        all
      )
      expect(spot.pages.every((page) => page.servedFrom === undefined)).toBe(true)
      const funding = yield* run(api.streamFundingPages({ from }))
      const allFunding = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("funding"))
      expectExactly(
        funding.pages.flatMap((page) => page.bills),
        allFunding
      )
    }).pipe(Effect.provide(stack(0, { maxWindowMillis: 30 * day })))
  )

  it.effect("a spot cursor the horizon has passed resumes clipped, never stuck", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const from = now - 80 * day
      yield* TestClock.setTime(now)
      const first = yield* Stream.runCollect(Stream.take(api.streamSpotPages({ from, concurrency: 1 }), 1))
      const cursor = Chunk.unsafeHead(first).cursor
      // Twenty days on, the window's start lies 100 days back: 10 days beyond the horizon.
      yield* TestClock.adjust(20 * day)
      const exit = yield* runOnTestClock(Stream.runCollect(api.streamSpotPages({ cursor })), 100)
      if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the walk failed: ${String(exit.cause)}`)
      const rest = Chunk.toReadonlyArray(exit.value)
      const pages = [Chunk.unsafeHead(first), ...rest]
      const servedFrom = DateTime.toEpochMillis(rest[rest.length - 1]?.servedFrom ?? DateTime.unsafeMake(0))
      expect(servedFrom).toBeGreaterThan(now + 20 * day - lookbackMillis)
      const all = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.bills("spot"))
      const end = now - 1
      const inWindow = all.filter((bill) => Number(bill.cTime) >= from && Number(bill.cTime) <= end)
      expectExactly(
        pages.flatMap((page) => page.bills),
        inWindow.filter((bill) => Number(bill.cTime) >= servedFrom),
        inWindow
      )
    }).pipe(Effect.provide(stack(0, { lookbackMillis })))
  )

  for (const order of ["newest-first", "oldest-first"] as const) {
    it.effect(`a resumed funding walk keeps the horizon it learned (${order}): no refusal, no probes again`, () =>
      Effect.gen(function* () {
        const api = yield* BillsApi
        const exchange = yield* FakeExchange
        yield* TestClock.setTime(now)
        const from = now - 150 * day
        const first = yield* Stream.runCollect(Stream.take(api.streamFundingPages({ from, concurrency: 1 }), 2))
        const cursor = Chunk.unsafeLast(first).cursor
        // The walk has learned where the exchange's history starts; the resumed one must keep it.
        expect(Chunk.unsafeLast(first).servedFrom).toBeDefined()
        const sent = Effect.map(exchange.requests, (log) => log.filter((r) => r.operation !== "serverTime").length)
        const before = yield* sent
        const exit = yield* runOnTestClock(Stream.runCollect(api.streamFundingPages({ cursor, concurrency: 1 })), 100)
        if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the resumed walk failed: ${String(exit.cause)}`)
        const rest = Chunk.toReadonlyArray(exit.value)
        // One request per page, and at most one more to see the walk end.
        expect((yield* sent) - before).toBeLessThanOrEqual(rest.length + 1)
        expectServed([...Chunk.toReadonlyArray(first), ...rest], yield* exchange.bills("funding"), from, now)
      }).pipe(Effect.provide(stack(0, { lookbackMillis, order })))
    )
  }
})

describe("a funding window the horizon has wholly passed", () => {
  it.effect("ends after the refusal without another page request: one empty page, served from past its end", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* TestClock.setTime(now)
      const from = now - 150 * day
      const to = now - 120 * day
      // At most a few pages: a walk that went on asking would never end.
      const exit = yield* runOnTestClock(Stream.runCollect(Stream.take(api.streamFundingPages({ from, to }), 3)), 100)
      if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the walk failed: ${String(exit.cause)}`)
      const pages = Chunk.toReadonlyArray(exit.value)
      expect(pages).toHaveLength(1)
      const page = pages[0]
      expect(page?.bills).toEqual([])
      expect(page?.total).toBe(0)
      expect(page?.received).toBe(0)
      expect(page?.cursor.done).toBe(true)
      // The exchange serves nothing up to the window's end: the first millisecond after it.
      expect(page?.cursor.servedFrom).toBe(to + 1)
      expect(page?.servedFrom === undefined ? undefined : DateTime.toEpochMillis(page.servedFrom)).toBe(to + 1)
      // The refused page and the probes that found the horizon past the window; no page after.
      const pageRequests = (yield* exchange.requests).filter(
        (r) => r.operation === "fundingBills" && (r.params as { readonly pageSize: number }).pageSize === 100
      )
      expect(pageRequests).toHaveLength(1)
    }).pipe(Effect.provide(stack(0, { lookbackMillis })))
  )
})

describe("a funding walk the horizon overtakes after its first page", () => {
  const from = now - lookbackMillis + 3_600_000
  // Ten bills in the window's first hour, which the horizon takes while the walk reads page 1,
  // and 140 later ones: 150 bills, two pages.
  const bills = [
    ...Array.from({ length: 10 }, (_, i) => lateFundingBill(i, from + i * 300_000)),
    ...Array.from({ length: 140 }, (_, i) => lateFundingBill(10 + i, from + 7_200_000 + i * 600_000))
  ]
  const walkOf = (order: "newest-first" | "oldest-first") =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      yield* TestClock.setTime(now)
      const got: Array<FundingPage> = []
      // Two hours pass after each page: page 2's start is then an hour older than the horizon.
      const exit = yield* Effect.exit(
        Stream.runForEach(api.streamFundingPages({ from, concurrency: 1 }), (page) =>
          Effect.zipRight(
            Effect.sync(() => got.push(page)),
            TestClock.adjust("2 hours")
          )
        )
      )
      return { exit, pages: got }
    }).pipe(
      Effect.provide(fakeStack({ exchange: { bills: { funding: bills }, order, lookbackMillis, rateLimit: false } }))
    )

  it.effect("newest first: the walk relearns the horizon, and page 2 of the narrower window is compared afresh", () =>
    Effect.gen(function* () {
      const { exit, pages } = yield* walkOf("newest-first")
      if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the walk failed: ${String(exit.cause)}`)
      expect(pages.map((page) => page.pageIndex)).toEqual([1, 2])
      // The window lost its first hour and more: page 2 reports the narrower window's total.
      expect(pages.map((page) => page.total)).toEqual([150, 140])
      const servedFrom = pages[1]?.cursor.servedFrom ?? 0
      expect(servedFrom).toBeGreaterThan(from + 3_600_000)
      expect(servedFrom).toBeLessThanOrEqual(from + 7_200_000)
      expect(pages[1]?.servedFrom === undefined ? undefined : DateTime.toEpochMillis(pages[1].servedFrom)).toBe(
        servedFrom
      )
      expectExactly(
        pages.flatMap((page) => page.bills),
        bills.slice(10)
      )
    })
  )

  it.effect("oldest first: the walk fails, typed, instead of reading a page 2 that skips bills", () =>
    Effect.gen(function* () {
      const { exit, pages } = yield* walkOf("oldest-first")
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
      expect(error?._tag).toBe("BillsIncomplete")
      expect(error?.message).toContain("fundingBills: cannot read every bill")
      expect(error?.message).toContain("stopped serving this window after page 1")
      expect(error?.message).toContain("Only the last three months")
      expect(error?.message).toContain("not known to list newest first")
      expect(pages.map((page) => page.pageIndex)).toEqual([1])
    })
  )
})

describe("a horizon that moves on faster than the walk learns it", () => {
  const from = now - lookbackMillis + 3_600_000
  const to = from + 30 * 3_600_000
  /**
   * The fake exchange behind an HttpClient that moves its horizon two hours on just before each
   * page request (of 100 records, not a probe of one) reaches it: every page is refused, and
   * every refusal teaches a later horizon than the one before.
   */
  const fleeing = Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function* () {
      const exchange = yield* FakeExchange
      const inner = FakeExchange.httpClient(exchange)
      return HttpClient.make((request) =>
        Effect.gen(function* () {
          const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          if (body.includes('"pageSize":100')) {
            const behaviour = yield* exchange.behaviour
            yield* exchange.configure({ lookbackMillis: (behaviour.lookbackMillis ?? 0) - 2 * 3_600_000 })
          }
          return yield* inner.execute(request)
        })
      )
    })
  )
  const fleeingStack = wrappedStack(fleeing, {
    bills: { funding: [lateFundingBill(0, from + 20 * 3_600_000)] },
    lookbackMillis,
    rateLimit: false
  })

  it.effect("the walk gives up with the ninth refusal, before the horizon has passed its window", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* TestClock.setTime(now)
      // Thirty hours of window: fifteen refusals more and the horizon would be past it all.
      const exit = yield* runOnTestClock(
        Stream.runCollect(Stream.take(api.streamFundingPages({ from, to, concurrency: 1 }), 3)),
        1000
      )
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
      expect(error?._tag).toBe("BillsApiError")
      expect(error?._tag === "BillsApiError" ? error.reason : undefined).toBe("HistoryLimit")
      const pageRequests = (yield* exchange.requests).filter(
        (r) => r.operation === "fundingBills" && (r.params as { readonly pageSize: number }).pageSize === 100
      )
      // The first try and eight relearned ones, each refused.
      expect(pageRequests.map((r) => r.outcome)).toEqual(
        Array.from({ length: 9 }, () => ({ _tag: "Answered", status: 400, code: "40704" }))
      )
    }).pipe(Effect.provide(fleeingStack))
  )
})

describe("a funding cursor the horizon has passed, resumed with read-ahead", () => {
  it.effect("the part the horizon cuts, fetched ahead and refused, is read again under the horizon learned", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* TestClock.setTime(now)
      const from = now - 80 * day
      // The first page teaches the width: the window is then read in 30-day parts, the latest first.
      const first = yield* Stream.runCollect(Stream.take(api.streamFundingPages({ from, concurrency: 1 }), 1))
      const cursor = Chunk.unsafeHead(first).cursor
      expect(cursor.maxWidth).toBe(30 * day)
      // Twenty days on, the horizon lies inside the oldest part, whose first page is fetched ahead.
      yield* TestClock.adjust(20 * day)
      const exit = yield* runOnTestClock(Stream.runCollect(api.streamFundingPages({ cursor, concurrency: 8 })), 100)
      if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the walk failed: ${String(exit.cause)}`)
      const rest = Chunk.toReadonlyArray(exit.value)
      const servedFrom = rest[rest.length - 1]?.cursor.servedFrom ?? 0
      expect(servedFrom).toBeGreaterThan(now + 20 * day - lookbackMillis)
      expect(servedFrom).toBeLessThanOrEqual(now + 20 * day - lookbackMillis + 60_001)
      const refused = (yield* exchange.requests).filter(
        (r) =>
          r.operation === "fundingBills" &&
          (r.params as { readonly pageSize: number }).pageSize === 100 &&
          r.outcome._tag === "Answered" &&
          r.outcome.code === "40704"
      )
      // The first request of the walk (too wide) and the oldest part's first page (too old).
      expect(refused).toHaveLength(2)
      const all = yield* exchange.bills("funding")
      const inWindow = all.filter((bill) => Number(bill.cTime) >= from && Number(bill.cTime) < now)
      expectExactly(
        [...Chunk.toReadonlyArray(first), ...rest].flatMap((page) => page.bills),
        inWindow.filter((bill) => Number(bill.cTime) >= servedFrom),
        inWindow
      )
    }).pipe(Effect.provide(stack(0, { lookbackMillis, maxWindowMillis: 30 * day })))
  )
})

describe("a width limit on a history that starts in 1970", () => {
  it.effect("the oldest part starts at 1970's first millisecond, sent as a start bound of 0", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      yield* TestClock.setTime(100 * day)
      const exit = yield* runOnTestClock(Stream.runCollect(api.streamFundingPages()), 100)
      if (Exit.isFailure(exit)) return yield* Effect.dieMessage(`the walk failed: ${String(exit.cause)}`)
      expectExactly(
        Chunk.toReadonlyArray(exit.value).flatMap((page) => page.bills),
        yield* exchange.bills("funding")
      )
      const bodies = (yield* exchange.requests)
        .filter((r) => r.operation === "fundingBills")
        .map((r) => JSON.parse(r.body) as { readonly startTime?: string; readonly pageSize: number })
      // The last page asked for is the oldest part's, from 0 (a request without a start is refused).
      expect(bodies[bodies.length - 1]).toMatchObject({ startTime: "0", pageSize: 100 })
    }).pipe(
      Effect.provide(
        fakeStack({
          exchange: {
            bills: { funding: [5, 40, 70, 95].map((d, i) => lateFundingBill(i, d * day)) },
            maxWindowMillis: 30 * day,
            rateLimit: false
          }
        })
      )
    )
  )
})
