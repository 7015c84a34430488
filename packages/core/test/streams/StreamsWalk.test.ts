import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi, type BillsError, FundingCursor, SpotCursor } from "../../src/index.js"
import { FakeExchange, type SpotWireBill } from "../../src/testing/index.js"
import { epoch, fundingBills, type Shape, selected, spotBills } from "../support/billScenarios.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"
import { envelope, makeStub } from "../support/stubHttp.js"
import { collect, expectExactly, expectTimeOrder } from "../support/streamCheck.js"

const orders = ["newest-first", "oldest-first"] as const
const boundsKinds = ["inclusive", "exclusive"] as const

const stack = (
  bills: { readonly spot?: ReadonlyArray<SpotWireBill>; readonly funding?: ReturnType<typeof fundingBills> },
  order: (typeof orders)[number] = "newest-first",
  bounds: (typeof boundsKinds)[number] = "inclusive"
) => fakeStack({ exchange: { bills, order, bounds, rateLimit: false }, rateLimit: false })

/** The TestClock just after every bill of `shape`, so the default `to` covers them all. */
const afterBills = (bills: ReadonlyArray<{ readonly cTime: string }>) =>
  TestClock.setTime(Number(bills[bills.length - 1]?.cTime ?? epoch) + 1)

const failureOf = <A>(exit: Exit.Exit<A, BillsError>): BillsError | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined

const spotRequests = Effect.map(FakeExchange, (exchange) => exchange.stats).pipe(
  Effect.flatten,
  Effect.map((stats) => stats.spotBills.requests)
)
const fundingRequests = Effect.map(FakeExchange, (exchange) => exchange.stats).pipe(
  Effect.flatten,
  Effect.map((stats) => stats.fundingBills.requests)
)

const thousand: Shape = { seed: 7, count: 1000, maxGroup: 3, maxGap: 5 }

describe("streams are lazy", () => {
  it.effect("taking 5 spot bills makes one request", () => {
    const bills = spotBills(thousand)
    return Effect.gen(function* () {
      yield* afterBills(bills)
      const api = yield* BillsApi
      const taken = yield* Stream.runCollect(Stream.take(api.streamSpotBills(), 5))
      expect(Chunk.size(taken)).toBe(5)
      expect(yield* spotRequests).toBe(1)
    }).pipe(Effect.provide(stack({ spot: bills })))
  })

  it.effect("taking 5 funding bills makes one request", () => {
    const bills = fundingBills(thousand)
    return Effect.gen(function* () {
      yield* afterBills(bills)
      const api = yield* BillsApi
      const taken = yield* Stream.runCollect(Stream.take(api.streamFundingBills(), 5))
      expect(Chunk.size(taken)).toBe(5)
      expect(yield* fundingRequests).toBe(1)
    }).pipe(Effect.provide(stack({ funding: bills })))
  })

  for (const account of ["spot", "funding"] as const) {
    it.effect(
      `far away (150 ms) with the default concurrency, taking 5 ${account} bills makes one request; pulling on reads ahead`,
      () => {
        const bills = account === "spot" ? spotBills(thousand) : fundingBills(thousand)
        return Effect.gen(function* () {
          yield* afterBills(bills)
          const api = yield* BillsApi
          const stream = account === "spot" ? api.streamSpotBills() : api.streamFundingBills()
          const requests = account === "spot" ? spotRequests : fundingRequests
          const taken = yield* runOnTestClock(Stream.runCollect(Stream.take(stream, 5)), 10)
          expect(Exit.isSuccess(taken) ? Chunk.size(taken.value) : -1).toBe(5)
          // Whatever was in flight has had time to arrive.
          yield* TestClock.adjust(1000)
          expect(yield* requests).toBe(1)
          const more = yield* runOnTestClock(Stream.runCollect(Stream.take(stream, 101)), 10)
          expect(Exit.isSuccess(more) ? Chunk.size(more.value) : -1).toBe(101)
          yield* TestClock.adjust(1000)
          // The second walk read ahead of its second page: more than the two pages it needed.
          expect(yield* requests).toBeGreaterThan(1 + 2)
        }).pipe(
          Effect.provide(
            fakeStack({
              exchange: { bills: { [account]: bills }, rateLimit: false, latency: { millis: 150 } },
              rateLimit: false
            })
          )
        )
      }
    )
  }

  it.effect("building a stream sends nothing; an empty window sends nothing either", () => {
    const bills = spotBills(thousand)
    return Effect.gen(function* () {
      yield* afterBills(bills)
      const api = yield* BillsApi
      api.streamSpotBills()
      api.streamFundingBills()
      const at = Number(bills[10]?.cTime)
      expect(Chunk.size(yield* Stream.runCollect(api.streamSpotBills({ from: at, to: at })))).toBe(0)
      expect(Chunk.size(yield* Stream.runCollect(api.streamFundingBills({ from: at, to: at })))).toBe(0)
      expect(yield* spotRequests).toBe(0)
      expect(yield* fundingRequests).toBe(0)
    }).pipe(Effect.provide(stack({ spot: bills, funding: fundingBills(thousand) })))
  })
})

describe("spot walk economy", () => {
  for (const order of orders) {
    for (const bounds of boundsKinds) {
      // One walk: a page per 100 bills and little more. Concurrent walks pay about one request
      // per segment they cut off (8 pages each by default).
      for (const { concurrency, most } of [
        { concurrency: 1, most: 105 },
        { concurrency: 8, most: 115 }
      ]) {
        it.effect(
          `10,000 bills, at most 5 per millisecond, concurrency ${concurrency}: at most ${most} requests (${order}, ${bounds})`,
          () => {
            const bills = spotBills({ seed: 11, count: 10_000, maxGroup: 5, maxGap: 2 })
            return Effect.gen(function* () {
              yield* afterBills(bills)
              const api = yield* BillsApi
              const { bills: got, exit } = yield* collect(api.streamSpotBills({ concurrency }))
              expect(Exit.isSuccess(exit)).toBe(true)
              expectExactly(got, bills)
              expectTimeOrder(got, order)
              const requests = yield* spotRequests
              expect(requests).toBeLessThanOrEqual(most)
            }).pipe(Effect.provide(stack({ spot: bills }, order, bounds)))
          }
        )
      }
    }
  }
})

describe("spot walk: crowded milliseconds", () => {
  const crowdedAt = (size: number, at: "middle" | "to" | "from-1") => {
    const base = spotBills({ seed: 3, count: 600, maxGroup: 2, maxGap: 3 })
    const middle = Number(base[300]?.cTime)
    const from = Number(base[100]?.cTime)
    const to = Number(base[500]?.cTime)
    const t = at === "middle" ? middle : at === "to" ? to : from - 1
    const crowd = Array.from({ length: size }, (_, k) => ({
      ...(base[0] as SpotWireBill),
      billId: String(900000000000000000n + BigInt(k)),
      cTime: String(t)
    }))
    return { bills: [...base, ...crowd].sort((a, b) => Number(a.cTime) - Number(b.cTime)), from, to, t }
  }

  for (const order of orders) {
    for (const bounds of boundsKinds) {
      it.effect(`120 bills in one millisecond of the window fail, naming it (${order}, ${bounds})`, () => {
        const { bills, from, t, to } = crowdedAt(120, "middle")
        return Effect.gen(function* () {
          yield* afterBills(bills)
          const api = yield* BillsApi
          const { exit } = yield* collect(api.streamSpotBills({ from, to }))
          const error = failureOf(exit)
          expect(error?._tag).toBe("BillsIncomplete")
          expect(error?._tag === "BillsIncomplete" ? error.millisecond : undefined).toBe(t)
          expect(error?.message).toContain(new Date(t).toISOString())
        }).pipe(Effect.provide(stack({ spot: bills }, order, bounds)))
      })

      it.effect(`150 bills at a millisecond just outside the window do not stop it (${order}, ${bounds})`, () =>
        Effect.gen(function* () {
          for (const at of ["to", "from-1"] as const) {
            const { bills, from, to } = crowdedAt(150, at)
            const got = yield* Effect.gen(function* () {
              yield* afterBills(bills)
              const api = yield* BillsApi
              return yield* collect(api.streamSpotBills({ from, to }))
            }).pipe(Effect.provide(stack({ spot: bills }, order, bounds)))
            expect(Exit.isSuccess(got.exit)).toBe(true)
            expectExactly(got.bills, selected(bills, { from, to }))
          }
        })
      )
    }
  }
})

const record = (billId: number, cTime: number) => ({
  billId: String(736825748291061726n + BigInt(billId)),
  coinId: 1,
  coinName: "USDT",
  bizType: "trade_in",
  fillSize: "1",
  fillValue: "1",
  deltaAmount: "1",
  afterAmount: "1",
  fees: "0",
  cTime: String(cTime)
})

describe("a server that contradicts itself fails the walk instead of looping", () => {
  const now = 1_700_000_000_000
  // One walk at a time, so the requests counted are those of the step under test.
  const run = (answers: ReadonlyArray<string>, operation: "spot" | "funding" = "spot") => {
    const stub = makeStub(answers.map((body) => ({ status: 200, body })))
    return Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const api = yield* BillsApi
      const query = { concurrency: 1 }
      const stream = operation === "spot" ? api.streamSpotBills(query) : api.streamFundingBills(query)
      let bills = 0
      const exit = yield* Effect.exit(Stream.runDrain(Stream.tap(stream, () => Effect.sync(() => bills++))))
      return { error: failureOf(exit), requests: stub.requests.length, bills }
    }).pipe(Effect.provide(stub.layer))
  }

  it.effect("the same full page of spread-out bills, forever", () =>
    Effect.gen(function* () {
      const page = envelope(Array.from({ length: 100 }, (_, i) => record(i, now - 1000 - i * 10)))
      const { error, requests } = yield* run([page])
      expect(error?._tag).toBe("BillsIncomplete")
      expect(requests).toBe(2)
    })
  )

  it.effect("the same full page of one millisecond, forever", () =>
    Effect.gen(function* () {
      const page = envelope(Array.from({ length: 100 }, (_, i) => record(i, now - 5000)))
      const { error, requests } = yield* run([page])
      expect(error?._tag === "BillsIncomplete" ? error.millisecond : undefined).toBe(now - 5000)
      expect(requests).toBe(1)
    })
  )

  it.effect("the same full page at the widened end bound, forever", () =>
    Effect.gen(function* () {
      // Bills at `to` prove the end bound inclusive once; the same page again contradicts that.
      const page = envelope(Array.from({ length: 100 }, (_, i) => record(i, now)))
      const { error, requests } = yield* run([page])
      expect(error?._tag).toBe("BillsIncomplete")
      expect(requests).toBe(2)
    })
  )

  it.effect("an order that flips between pages", () =>
    Effect.gen(function* () {
      const newest = envelope(Array.from({ length: 100 }, (_, i) => record(i, now - 100 - i)))
      const oldest = envelope(Array.from({ length: 100 }, (_, i) => record(200 + i, now - 10_000 + i)))
      const { error } = yield* run([newest, oldest])
      expect(error?._tag).toBe("BillsIncomplete")
      expect(error?.message).toContain("newest-first and then oldest-first")
    })
  )

  it.effect("an unsorted page", () =>
    Effect.gen(function* () {
      const page = envelope([record(1, now - 10), record(2, now - 30), record(3, now - 20)])
      const { error } = yield* run([page])
      expect(error?.message).toContain("not sorted by time")
    })
  )

  it.effect("funding: the same page with hasNextPage, forever", () =>
    Effect.gen(function* () {
      const items = Array.from({ length: 100 }, (_, i) => ({
        ...record(i, now - 1000 - i),
        fillSize: null,
        fillValue: null
      }))
      const page = envelope({ total: 100_000, page: 1, pageSize: 100, hasNextPage: true, items })
      const { error, requests } = yield* run([page], "funding")
      expect(error?.message).toContain("repeats the page before")
      expect(requests).toBe(2)
    })
  )

  it.effect("funding: hasNextPage is followed beyond the total, and a page that repeats the one before fails", () =>
    Effect.gen(function* () {
      const items = [{ ...record(1, now - 1000), fillSize: null, fillValue: null }]
      const more = envelope({ total: 1, page: 1, pageSize: 100, hasNextPage: true, items })
      const last = envelope({
        total: 1,
        page: 2,
        pageSize: 100,
        hasNextPage: false,
        items: [{ ...record(2, now - 2000), fillSize: null, fillValue: null }]
      })
      const followed = yield* run([more, last], "funding")
      expect(followed).toEqual({ error: undefined, requests: 2, bills: 2 })
      const { error, requests } = yield* run([more], "funding")
      expect(error?.message).toContain("page 2 repeats the page before and says more follow")
      expect(requests).toBe(2)
    })
  )

  // The v3 funding docs' sample: `total: 12`, one item, `pages: 1`, `hasNextPage: false`.
  it.effect("funding: a last page that leaves bills of the total unlisted delivers its bills, then fails", () =>
    Effect.gen(function* () {
      const items = [{ ...record(1, now - 1000), fillSize: null, fillValue: null }]
      const page = envelope({ total: 12, page: 1, pageSize: 100, pages: 1, hasNextPage: false, items })
      const { bills, error, requests } = yield* run([page], "funding")
      expect(bills).toBe(1)
      expect(requests).toBe(1)
      expect(error?._tag).toBe("BillsIncomplete")
      expect(error?.message).toContain("hasNextPage false, pages 1")
      expect(error?.message).toContain("1 of the total 12")
    })
  )
})

describe("queries are validated before anything is sent", () => {
  it.effect("from after to, a bad coinId, a bad bizType, a cursor of another query", () => {
    const bills = spotBills(thousand)
    return Effect.gen(function* () {
      yield* afterBills(bills)
      const api = yield* BillsApi
      const fail = <A>(stream: Stream.Stream<A, BillsError>) =>
        Effect.map(Effect.exit(Stream.runDrain(stream)), failureOf)
      const reversed = yield* fail(api.streamSpotBills({ from: 2000, to: 1000 }))
      expect(reversed?._tag === "InvalidParams" ? reversed.field : undefined).toBe("from")
      const coin = yield* fail(api.streamFundingBills({ coinId: 0 }))
      expect(coin?._tag === "InvalidParams" ? coin.field : undefined).toBe("coinId")
      const badBizType: string = "trade in; drop"
      const biz = yield* fail(api.streamFundingBills({ bizType: badBizType as "deposit" }))
      expect(biz?._tag).toBe("InvalidParams")
      const first = yield* Stream.runHead(api.streamSpotPages({ coinId: 1 }))
      const cursor = first._tag === "Some" ? first.value.cursor : undefined
      const requestsBefore = yield* spotRequests
      const other = yield* fail(api.streamSpotBills({ coinId: 2, cursor }))
      expect(other?._tag === "InvalidParams" ? other.field : undefined).toBe("cursor")
      expect(yield* spotRequests).toBe(requestsBefore)
    }).pipe(Effect.provide(stack({ spot: bills })))
  })
})

describe("the window", () => {
  it.effect("to defaults to the clock at the start, and bills arriving meanwhile wait for the next window", () => {
    const bills = spotBills(thousand)
    const start = Number(bills[600]?.cTime)
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      const arrive = (n: number) => (n % 50 === 0 ? Effect.asVoid(exchange.appendGenerated("spot", 40)) : Effect.void)
      const { bills: got, exit } = yield* collect(api.streamSpotBills(), arrive)
      expect(Exit.isSuccess(exit)).toBe(true)
      expectExactly(got, selected(bills, { to: start }))
    }).pipe(Effect.provide(stack({ spot: bills })))
  })

  it.effect("a to in the future is capped at the clock", () => {
    const bills = spotBills(thousand)
    const start = Number(bills[600]?.cTime)
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const api = yield* BillsApi
      const got = yield* Stream.runCollect(api.streamFundingBills({ to: start + 1_000_000 }))
      expectExactly(Chunk.toReadonlyArray(got), selected(fundingBills(thousand), { to: start }))
    }).pipe(Effect.provide(stack({ funding: fundingBills(thousand) })))
  })

  it.effect("chained windows [a, b) and [b, c) list every bill once", () => {
    const bills = spotBills({ seed: 5, count: 800, maxGroup: 5, maxGap: 2 })
    const [a, b, c] = [Number(bills[0]?.cTime), Number(bills[400]?.cTime), Number(bills[799]?.cTime) + 1]
    return Effect.gen(function* () {
      yield* afterBills(bills)
      const api = yield* BillsApi
      const first = yield* Stream.runCollect(api.streamSpotBills({ from: a, to: new Date(b) }))
      const second = yield* Stream.runCollect(api.streamSpotBills({ from: new Date(b), to: c }))
      expectExactly([...first, ...second], bills)
    }).pipe(Effect.provide(stack({ spot: bills }, "oldest-first", "inclusive")))
  })
})

describe("resuming from a page cursor", () => {
  for (const order of orders) {
    for (const bounds of boundsKinds) {
      it.effect(`spot and funding continue exactly after any page, through JSON (${order}, ${bounds})`, () => {
        const spot = spotBills({ seed: 9, count: 700, maxGroup: 5, maxGap: 2 })
        const funding = fundingBills({ seed: 9, count: 700, maxGroup: 5, maxGap: 2 })
        const query = { from: Number(spot[20]?.cTime), coinId: 1 }
        return Effect.gen(function* () {
          yield* afterBills(spot)
          const api = yield* BillsApi
          const spotPages = Chunk.toReadonlyArray(yield* Stream.runCollect(api.streamSpotPages(query)))
          expect(spotPages.length).toBeGreaterThan(1)
          for (let k = 1; k <= spotPages.length; k++) {
            const stored = JSON.stringify(
              Schema.encodeSync(SpotCursor)((spotPages[k - 1] as (typeof spotPages)[number]).cursor)
            )
            const cursor = Schema.decodeUnknownSync(SpotCursor)(JSON.parse(stored))
            const before = spotPages.slice(0, k).flatMap((page) => page.bills)
            const after = yield* Stream.runCollect(api.streamSpotBills({ ...query, cursor }))
            expectExactly([...before, ...after], selected(spot, query))
          }
          const fundingPages = Chunk.toReadonlyArray(yield* Stream.runCollect(api.streamFundingPages(query)))
          expect(fundingPages.length).toBeGreaterThan(1)
          for (let k = 1; k <= fundingPages.length; k++) {
            const page = fundingPages[k - 1] as (typeof fundingPages)[number]
            const stored = JSON.stringify(Schema.encodeSync(FundingCursor)(page.cursor))
            const cursor = Schema.decodeUnknownSync(FundingCursor)(JSON.parse(stored))
            const before = fundingPages.slice(0, k).flatMap((p) => p.bills)
            const after = yield* Stream.runCollect(api.streamFundingBills({ cursor }))
            expectExactly([...before, ...after], selected(funding, query))
          }
          // A finished walk's cursor resumes to nothing, without a request.
          const last = spotPages[spotPages.length - 1]
          const requests = yield* spotRequests
          expect(Chunk.size(yield* Stream.runCollect(api.streamSpotBills({ cursor: last?.cursor })))).toBe(0)
          expect(yield* spotRequests).toBe(requests)
        }).pipe(Effect.provide(stack({ spot, funding }, order, bounds)))
      })
    }
  }
})

describe("with the real rate limiter", () => {
  it.effect("a 3,000-bill walk stays under the exchange's limit", () => {
    const bills = spotBills({ seed: 4, count: 3000, maxGroup: 4, maxGap: 3 })
    return Effect.gen(function* () {
      yield* afterBills(bills)
      const exit = yield* runOnTestClock(
        Effect.gen(function* () {
          const api = yield* BillsApi
          return yield* collect(api.streamSpotBills())
        })
      )
      const result = Exit.isSuccess(exit) ? exit.value : undefined
      expect(result !== undefined && Exit.isSuccess(result.exit)).toBe(true)
      expectExactly(result?.bills ?? [], bills)
      const exchange = yield* FakeExchange
      expect((yield* exchange.stats).spotBills.rateLimited).toBe(0)
    }).pipe(Effect.provide(fakeStack({ exchange: { bills: { spot: bills } } })))
  })
})
