/**
 * One step of the spot walk, as the pure function it is: what each response proves about the
 * server (order, inclusive bounds), where the window moves, which ids are carried at its edge,
 * and which contradictions end the walk. The stream tests check the whole walk; these pin each
 * rule at its boundary.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { SpotBillFromWire } from "../../src/index.js"
import { type SpotWalkState, spotRequest, spotStep } from "../../src/internal/spotWalk.js"

const bill = (id: number, t: number) =>
  Schema.decodeUnknownSync(SpotBillFromWire)({
    billId: String(1000 + id),
    coinId: 1,
    coinName: "USDT",
    bizType: "trade_in",
    fillSize: "1",
    fillValue: "1",
    deltaAmount: "1",
    afterAmount: "1",
    fees: "0",
    cTime: String(t)
  })

const start: SpotWalkState = {
  lo: 1000,
  hi: 1999,
  inclusiveAfter: false,
  inclusiveBefore: false,
  order: "unknown",
  edgeBillIds: []
}

const limit = 4
const ids = (step: ReturnType<typeof spotStep>) =>
  Either.isRight(step) ? step.right.bills.map((b) => Number(b.billId) - 1000) : "failed"
const next = (step: ReturnType<typeof spotStep>) => (Either.isRight(step) ? step.right.next : "failed")
const message = (step: ReturnType<typeof spotStep>) => (Either.isLeft(step) ? step.left.message : "succeeded")

describe("spotRequest", () => {
  it("widens each bound by a millisecond until the server shows it inclusive", () => {
    expect(spotRequest(start)).toEqual({ after: 999, before: 2000 })
    expect(spotRequest({ ...start, inclusiveAfter: true, inclusiveBefore: true })).toEqual({
      after: 1000,
      before: 1999
    })
    expect(spotRequest({ ...start, lo: 0 })).toEqual({ after: undefined, before: 2000 })
    expect(spotRequest({ ...start, lo: 0, inclusiveAfter: true })).toEqual({ after: 0, before: 2000 })
  })
})

describe("spotStep", () => {
  const request = spotRequest(start)

  it("a short page ends the walk, keeping only bills inside the window", () => {
    const step = spotStep(
      start,
      request,
      [bill(1, 2000), bill(2, 1999), bill(3, 1000), bill(4, 999)].slice(0, 3),
      limit
    )
    expect(ids(step)).toEqual([2, 3])
    expect(next(step)).toBeUndefined()
  })

  it("newest-first: a full page narrows the window to its oldest millisecond and carries the ids there", () => {
    const step = spotStep(start, request, [bill(1, 1900), bill(2, 1800), bill(3, 1700), bill(4, 1700)], limit)
    expect(ids(step)).toEqual([1, 2, 3, 4])
    expect(next(step)).toEqual({
      lo: 1000,
      hi: 1700,
      inclusiveAfter: false,
      inclusiveBefore: false,
      order: "newest-first",
      edgeMillisecond: 1700,
      edgeBillIds: ["1003", "1004"]
    })
  })

  it("oldest-first: a full page narrows the window to its newest millisecond and carries the ids there", () => {
    const step = spotStep(start, request, [bill(1, 1100), bill(2, 1200), bill(3, 1300), bill(4, 1300)], limit)
    expect(next(step)).toEqual({
      lo: 1300,
      hi: 1999,
      inclusiveAfter: false,
      inclusiveBefore: false,
      order: "oldest-first",
      edgeMillisecond: 1300,
      edgeBillIds: ["1003", "1004"]
    })
  })

  it("at the same edge again, the ids already emitted are dropped and carried on with the new ones", () => {
    const state: SpotWalkState = {
      ...start,
      lo: 1300,
      order: "oldest-first",
      inclusiveAfter: true,
      edgeMillisecond: 1300,
      edgeBillIds: ["1003", "1004"]
    }
    const step = spotStep(
      state,
      spotRequest(state),
      [bill(3, 1300), bill(4, 1300), bill(5, 1300), bill(6, 1300)],
      limit
    )
    // Four bills in one millisecond fill the page and the window cannot move: that is a crowd.
    expect(message(step)).toContain("share this millisecond")
    const moving = spotStep(
      state,
      spotRequest(state),
      [bill(3, 1300), bill(4, 1300), bill(5, 1300), bill(6, 1400)],
      limit
    )
    expect(ids(moving)).toEqual([5, 6])
    expect(next(moving)).toMatchObject({ lo: 1400, edgeMillisecond: 1400, edgeBillIds: ["1006"] })
    const stay = spotStep(
      { ...state, inclusiveAfter: false },
      spotRequest({ ...state, inclusiveAfter: false }),
      [bill(9, 1299), bill(3, 1300), bill(4, 1300), bill(5, 1300)],
      limit
    )
    // The page proved `after` inclusive and stayed at the edge: the carried ids go on with the new one.
    expect(ids(stay)).toEqual([5])
    expect(next(stay)).toMatchObject({
      lo: 1300,
      inclusiveAfter: true,
      edgeMillisecond: 1300,
      edgeBillIds: ["1003", "1004", "1005"]
    })
  })

  it("a record the server repeats within one response is emitted once", () => {
    const step = spotStep(start, request, [bill(1, 1900), bill(1, 1900), bill(2, 1800)], limit)
    expect(ids(step)).toEqual([1, 2])
  })

  it("a bill at a widened bound proves that bound inclusive", () => {
    const after = spotStep(start, request, [bill(1, 999), bill(2, 1000), bill(3, 1050), bill(4, 1100)], limit)
    expect(ids(after)).toEqual([2, 3, 4])
    expect(next(after)).toMatchObject({ inclusiveAfter: true, inclusiveBefore: false, lo: 1100 })
    const before = spotStep(start, request, [bill(1, 2000), bill(2, 1900), bill(3, 1800), bill(4, 1700)], limit)
    expect(ids(before)).toEqual([2, 3, 4])
    expect(next(before)).toMatchObject({ inclusiveAfter: false, inclusiveBefore: true, hi: 1700 })
    const atZero = spotStep({ ...start, lo: 0 }, spotRequest({ ...start, lo: 0 }), [bill(1, 0)], limit)
    expect(ids(atZero)).toEqual([1])
  })

  it("a full page only at a widened bound, outside the window, proves that bound and goes on", () => {
    // Not a crowded millisecond of the window: its bills are outside it, and asking for the window
    // itself from now on leaves them out.
    const above = [bill(1, 2000), bill(2, 2000), bill(3, 2000), bill(4, 2000)]
    const before = spotStep(start, request, above, limit)
    expect(ids(before)).toEqual([])
    expect(next(before)).toMatchObject({ lo: 1000, hi: 1999, inclusiveBefore: true, inclusiveAfter: false })
    const below = [bill(1, 999), bill(2, 999), bill(3, 999), bill(4, 999)]
    const after = spotStep(start, request, below, limit)
    expect(next(after)).toMatchObject({ lo: 1000, hi: 1999, inclusiveAfter: true, inclusiveBefore: false })
  })

  it("an order once seen is kept through a page in one millisecond, which shows none", () => {
    // The server repeated a record: three bills fill the page at 1500, and the walk narrows to it
    // rather than calling the millisecond crowded.
    const newest: SpotWalkState = { ...start, order: "newest-first" }
    const page = [bill(1, 1500), bill(1, 1500), bill(2, 1500), bill(3, 1500)]
    const step = spotStep(newest, spotRequest(newest), page, limit)
    expect(ids(step)).toEqual([1, 2, 3])
    expect(next(step)).toMatchObject({
      lo: 1000,
      hi: 1500,
      order: "newest-first",
      edgeMillisecond: 1500,
      edgeBillIds: ["1001", "1002", "1003"]
    })
  })

  it("newest-first past the window's start, or oldest-first past its end, ends the walk", () => {
    const past = spotStep(start, request, [bill(1, 1002), bill(2, 1001), bill(3, 1000), bill(4, 999)], limit)
    expect(ids(past)).toEqual([1, 2, 3])
    expect(next(past)).toBeUndefined()
    const beyond = spotStep(start, request, [bill(1, 1997), bill(2, 1998), bill(3, 1999), bill(4, 2000)], limit)
    expect(ids(beyond)).toEqual([1, 2, 3])
    expect(next(beyond)).toBeUndefined()
  })

  it("a full page that ends exactly at the window's first (or last) millisecond goes on there", () => {
    // More bills may share that millisecond than the page held: ending here would lose them.
    const atStart = spotStep(start, request, [bill(1, 1003), bill(2, 1002), bill(3, 1001), bill(4, 1000)], limit)
    expect(next(atStart)).toMatchObject({ lo: 1000, hi: 1000, edgeMillisecond: 1000, edgeBillIds: ["1004"] })
    const atEnd = spotStep(start, request, [bill(1, 1996), bill(2, 1997), bill(3, 1998), bill(4, 1999)], limit)
    expect(next(atEnd)).toMatchObject({ lo: 1999, hi: 1999, edgeMillisecond: 1999, edgeBillIds: ["1004"] })
  })

  it("contradictions fail the walk, each with its reason", () => {
    const five = [bill(1, 1500), bill(2, 1400), bill(3, 1300), bill(4, 1200), bill(5, 1100)]
    expect(message(spotStep(start, request, five, limit))).toContain("5 bills for a limit of 4")
    expect(message(spotStep(start, request, five.slice(0, 4), limit))).toBe("succeeded")
    expect(message(spotStep(start, request, [bill(1, 998)], limit))).toContain(
      "bill at 998 for the window from 999 to 2000"
    )
    expect(message(spotStep(start, request, [bill(1, 2001)], limit))).toContain("bill at 2001")
    expect(message(spotStep(start, request, [bill(1, 1500), bill(2, 1400), bill(3, 1450)], limit))).toContain(
      "not sorted by time"
    )
    const newest = { ...start, order: "newest-first" as const }
    expect(message(spotStep(newest, request, [bill(1, 1400), bill(2, 1500)], limit))).toContain(
      "newest-first and then oldest-first"
    )
    expect(message(spotStep(newest, request, [bill(1, 1500), bill(2, 1500)], limit))).toBe("succeeded")
  })

  it("a full page in one millisecond names it, for each order", () => {
    const crowd = [bill(1, 1500), bill(2, 1500), bill(3, 1500), bill(4, 1500)]
    const unknown = spotStep(
      { ...start, inclusiveAfter: true, inclusiveBefore: true },
      { after: 1000, before: 1999 },
      crowd,
      limit
    )
    expect(Either.isLeft(unknown) ? unknown.left.millisecond : undefined).toBe(1500)
    const newest: SpotWalkState = {
      ...start,
      hi: 1500,
      order: "newest-first",
      inclusiveAfter: true,
      inclusiveBefore: true
    }
    const n = spotStep(newest, spotRequest(newest), crowd, limit)
    expect(Either.isLeft(n) ? n.left.millisecond : undefined).toBe(1500)
    const oldest: SpotWalkState = {
      ...start,
      lo: 1500,
      order: "oldest-first",
      inclusiveAfter: true,
      inclusiveBefore: true
    }
    const o = spotStep(oldest, spotRequest(oldest), crowd, limit)
    expect(Either.isLeft(o) ? o.left.millisecond : undefined).toBe(1500)
  })
})
