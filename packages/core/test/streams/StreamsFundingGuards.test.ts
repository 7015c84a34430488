/**
 * The funding walk's consistency guards: the end pinned when the walk starts, and the page
 * `total` checked between pages. Each is what keeps a server that drops or inserts records
 * from leaving a silent gap, so each is tested against a server that does exactly that.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import type * as Tracer from "effect/Tracer"
import { BillsApi, type BillsError } from "../../src/index.js"
import { FakeExchange } from "../../src/testing/index.js"
import { fundingBills } from "../support/billScenarios.js"
import { fakeStack } from "../support/fakeStack.js"
import { recordingSpans } from "../support/recordedSpans.js"
import { collect, expectExactly, expectTimeOrder } from "../support/streamCheck.js"
import { envelope, makeStub } from "../support/stubHttp.js"

const now = 1_700_000_000_000

const failureOf = <A>(exit: Exit.Exit<A, BillsError>): BillsError | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined

/** Funding record `n`, `n` seconds before `now`: ids never repeat across pages unless asked to. */
const fundingRecord = (n: number) => ({
  billId: String(736825748291061726n + BigInt(n)),
  coinId: 1,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: "1.10",
  afterAmount: `${n}.10`,
  fees: "0",
  cTime: String(now - 1000 * (n + 1)),
  fillSize: null,
  fillValue: null
})

const range = (first: number, count: number) => Array.from({ length: count }, (_, i) => fundingRecord(first + i))

const page = (total: number, pageIndex: number, hasNextPage: boolean, items: ReadonlyArray<unknown>) =>
  envelope({ total, page: pageIndex, pageSize: 100, hasNextPage, items })

/** Streams funding bills from a server scripted page by page; the clock moves a minute per page. */
// Scripted answers come in the order asked, so these walks ask one page at a time (concurrency 1):
// what is under test is the rule between two pages, not the read-ahead.
const runScripted = (pages: ReadonlyArray<string>, query: { readonly from?: number } = {}) => {
  const stub = makeStub(pages.map((body) => ({ status: 200, body })))
  return Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const api = yield* BillsApi
    const got: Array<string> = []
    const exit = yield* Effect.exit(
      Stream.runForEach(api.streamFundingPages({ ...query, concurrency: 1 }), (p) =>
        Effect.zipRight(
          Effect.sync(() => got.push(...p.bills.map((bill) => bill.billId))),
          TestClock.adjust("1 minute")
        )
      )
    )
    const bodies = stub.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>)
    return { error: failureOf(exit), exit, got, bodies }
  }).pipe(Effect.provide(stub.layer))
}

describe("funding walk: the page total is checked between pages", () => {
  it.effect("page 2 reporting a lower total fails the walk, naming both totals", () =>
    Effect.gen(function* () {
      // One bill vanished from page 1 after it was read: every later bill moved up one place,
      // so the first bill of the real page 2 is now on page 1 and would never be listed.
      const { bodies, error } = yield* runScripted([
        page(250, 1, true, range(0, 100)),
        page(249, 2, true, range(101, 100))
      ])
      expect(error?._tag).toBe("BillsIncomplete")
      expect(error?.message).toContain("fell from 250 to 249")
      expect(bodies).toHaveLength(2)
    })
  )

  it.effect("a total that falls on the last page fails too", () =>
    Effect.gen(function* () {
      const { error } = yield* runScripted([page(150, 1, true, range(0, 100)), page(149, 2, false, range(101, 49))])
      expect(error?.message).toContain("fell from 150 to 149")
    })
  )

  it.effect("a total that jumps by more than a page fails the walk", () =>
    Effect.gen(function* () {
      // 101 bills inserted into pages already read push at least one bill past page 2 unseen.
      const { bodies, error } = yield* runScripted([
        page(250, 1, true, range(0, 100)),
        page(351, 2, true, range(1, 100))
      ])
      expect(error?._tag).toBe("BillsIncomplete")
      expect(error?.message).toContain("101 bills were added")
      expect(bodies).toHaveLength(2)
    })
  )

  it.effect("a total that grows by exactly one page, or stays, is followed to the end", () =>
    Effect.gen(function* () {
      // 100 bills booked into the part not read yet: the walk reads them all, each once.
      const { exit, got } = yield* runScripted([
        page(150, 1, true, range(0, 100)),
        page(250, 2, true, range(100, 100)),
        page(250, 3, false, range(200, 50))
      ])
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(got).toEqual(range(0, 250).map((bill) => bill.billId))
    })
  )
})

describe("funding walk: the end is pinned when the walk starts", () => {
  it.effect("every page request carries the same endTime, the clock at the start, while the clock moves", () =>
    Effect.gen(function* () {
      const from = now - 3_600_000
      const { bodies, exit } = yield* runScripted(
        [page(250, 1, true, range(0, 100)), page(250, 2, true, range(100, 100)), page(250, 3, false, range(200, 50))],
        { from }
      )
      expect(Exit.isSuccess(exit)).toBe(true)
      // The server's bounds may be exclusive: the start is widened by one millisecond; the end
      // is exclusive in the walk and sent as it is.
      expect(bodies).toEqual(
        [1, 2, 3].map((pageIndex) => ({
          startTime: String(from - 1),
          endTime: String(now),
          pageIndex,
          pageSize: 100
        }))
      )
    })
  )

  it.effect("with no from and no width limit known, no start bound is sent: the exchange's own default applies", () =>
    Effect.gen(function* () {
      const { bodies, exit } = yield* runScripted([
        page(150, 1, true, range(0, 100)),
        page(150, 2, false, range(100, 50))
      ])
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(bodies).toEqual([1, 2].map((pageIndex) => ({ endTime: String(now), pageIndex, pageSize: 100 })))
    })
  )

  it.effect("a newest-first walk during which more than a page of new bills arrive lists the history once", () => {
    const bills = fundingBills({ seed: 21, count: 450, maxGroup: 3, maxGap: 4 })
    const start = Number(bills[bills.length - 1]?.cTime) + 1
    return Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const api = yield* BillsApi
      const exchange = yield* FakeExchange
      // 150 new bills land at the front of newest-first pages after page 1 was read, and 150
      // more after page 3: without the pinned end every later page would shift by 150.
      const arrive = (count: number) =>
        count === 1 || count === 250
          ? Effect.asVoid(Effect.zipRight(TestClock.adjust("1 second"), exchange.appendGenerated("funding", 150)))
          : Effect.void
      const { bills: got, exit } = yield* collect(api.streamFundingBills(), arrive)
      if (Exit.isFailure(exit)) expect.fail(`the stream failed: ${String(exit.cause)}`)
      expect((yield* exchange.bills("funding")).length).toBe(750)
      expectExactly(got, bills)
      expectTimeOrder(got, "newest-first")
      const ends = (yield* exchange.requests).map(
        (request) => (JSON.parse(request.body) as { endTime?: string }).endTime
      )
      expect(ends).toEqual(["1", "2", "3", "4", "5"].map(() => String(start)))
    }).pipe(
      Effect.provide(
        fakeStack({
          exchange: { bills: { funding: bills }, order: "newest-first", rateLimit: false },
          rateLimit: false
        })
      )
    )
  })
})

describe("funding walk: what each page says", () => {
  it.effect("the requests so far, the order the times show, and the last page ends the walk", () =>
    Effect.gen(function* () {
      const stub = makeStub(
        [
          page(250, 1, true, range(0, 100)),
          page(250, 2, true, range(100, 100)),
          page(250, 3, false, range(200, 50))
        ].map((body) => ({ status: 200, body }))
      )
      const pages = yield* Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const api = yield* BillsApi
        // At most one page more than the three: a walk that does not end there shows it.
        return Chunk.toReadonlyArray(
          yield* Stream.runCollect(Stream.take(api.streamFundingPages({ concurrency: 1 }), 4))
        )
      }).pipe(Effect.provide(stub.layer))
      expect(stub.requests).toHaveLength(3)
      expect(pages.map((p) => [p.pageIndex, p.requests, p.cursor.requests, p.received, p.total])).toEqual([
        [1, 1, 1, 100, 250],
        [2, 2, 2, 100, 250],
        [3, 3, 3, 50, 250]
      ])
      // The records run from newer to older: the cursor keeps the order from page 1 on.
      expect(pages.map((p) => p.cursor.order)).toEqual(["newest-first", "newest-first", "newest-first"])
      expect(pages.map((p) => p.cursor.done)).toEqual([false, false, true])
    })
  )
})

describe("funding walk: the order the pages list bills in", () => {
  /** Record `n` of a page at `t`: ids apart from the other records'. */
  const at = (n: number, t: number) => ({ ...fundingRecord(n), cTime: String(t) })
  /** The cursor's order after each page of a scripted walk. */
  const ordersOf = (pages: ReadonlyArray<string>) => {
    const stub = makeStub(pages.map((body) => ({ status: 200, body })))
    return Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const api = yield* BillsApi
      const got = yield* Stream.runCollect(api.streamFundingPages({ concurrency: 1 }))
      return Chunk.toReadonlyArray(got).map((p) => p.cursor.order)
    }).pipe(Effect.provide(stub.layer))
  }

  it.effect("an empty first page shows none, and ends the walk well", () =>
    Effect.gen(function* () {
      expect(yield* ordersOf([page(0, 1, false, [])])).toEqual([undefined])
    })
  )

  it.effect("a page of one millisecond shows none; the first page whose times differ shows it", () =>
    Effect.gen(function* () {
      const oneMillisecond = Array.from({ length: 100 }, (_, i) => at(500 + i, now - 500_000))
      // Newest first: page 2 lists older records, newest first.
      expect(yield* ordersOf([page(200, 1, true, oneMillisecond), page(200, 2, false, range(600, 100))])).toEqual([
        undefined,
        "newest-first"
      ])
      // Oldest first: page 2 lists newer records, oldest first.
      expect(
        yield* ordersOf([page(200, 1, true, oneMillisecond), page(200, 2, false, range(0, 100).reverse())])
      ).toEqual([undefined, "oldest-first"])
      expect(yield* ordersOf([page(100, 1, false, range(0, 100).reverse())])).toEqual(["oldest-first"])
    })
  )
})

describe("funding walk: the query is checked before anything is sent", () => {
  it.effect("a concurrency out of range fails with InvalidParams of fundingBills", () =>
    Effect.gen(function* () {
      const { bodies, error } = yield* Effect.gen(function* () {
        const stub = makeStub([{ status: 200, body: page(0, 1, false, []) }])
        const api = yield* Effect.provide(BillsApi, stub.layer)
        const exit = yield* Effect.exit(Stream.runDrain(api.streamFundingPages({ concurrency: 0 })))
        return { bodies: stub.requests, error: failureOf(exit) }
      })
      expect(error?._tag).toBe("InvalidParams")
      expect(error?._tag === "InvalidParams" ? [error.operation, error.field] : undefined).toEqual([
        "fundingBills",
        "concurrency"
      ])
      expect(bodies).toHaveLength(0)
    })
  )
})

describe("funding walk: its traces", () => {
  it.effect("each page request's span names the page and the bounds asked for", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.Span> = []
      const from = now - 3_600_000
      const { exit } = yield* runScripted([page(150, 1, true, range(0, 100)), page(150, 2, false, range(100, 50))], {
        from
      }).pipe(recordingSpans(spans))
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(
        spans
          .filter((span) => span.name === "BillsApi.streamFunding.page")
          .map((span) => ["pageIndex", "startTime", "endTime"].map((key) => span.attributes.get(key)))
      ).toEqual([
        [1, from - 1, now],
        [2, from - 1, now]
      ])
    })
  )
})
