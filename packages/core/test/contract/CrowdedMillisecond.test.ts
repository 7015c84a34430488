/**
 * The crowded millisecond, rule by rule, on hand-made answers: when a page counts as crowded, and
 * how reading on by the cursor ends (the listing leaving the millisecond on either side, ending
 * inside it, or misbehaving). The stream tests check the whole walk against the fake exchange;
 * these pin the cases a well-behaved fake never shows (a cursor that brings nothing new, one that
 * stops, a page over the limit, bills out of order) and the window left at its very edge.
 */
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { BillsIncomplete } from "../../src/Errors.js"
import { crowdedAt, type Listed, readCrowded } from "../../src/internal/crowdedMillisecond.js"
import type { SpotWalkState, TimedBill } from "../../src/internal/spotWalk.js"

const limit = 3
const m = 1_000

interface Bill extends TimedBill {
  readonly billId: string
}

const bill = (id: string, at: number): Bill => ({ billId: id, cTime: DateTime.unsafeMake(at) })

const state = (lo: number, hi: number, fields: Partial<SpotWalkState> = {}): SpotWalkState => ({
  lo,
  hi,
  inclusiveAfter: true,
  inclusiveBefore: true,
  order: "unknown",
  edgeBillIds: [],
  ...fields
})

/** A listing that serves `pages` one after the other by its cursor, and counts the requests. */
const listing = (pages: ReadonlyArray<Listed<Bill>>) => {
  let served = 0
  const at = (i: number): Effect.Effect<Listed<Bill>> =>
    Effect.sync(() => {
      served++
      const page = pages[i] ?? { items: [] }
      return { ...page, more: page.more === undefined && i + 1 < pages.length ? at(i + 1) : page.more }
    })
  return { more: at(0), served: () => served }
}

const ids = (bills: ReadonlyArray<Bill>) => bills.map((b) => b.billId)

const crowdedPage = [bill("a", m), bill("b", m), bill("c", m)]

describe("crowdedAt", () => {
  it("names the millisecond of a full page that lies wholly at one millisecond of the window", () => {
    expect(crowdedAt(state(0, 2 * m), crowdedPage, limit)).toBe(m)
    expect(crowdedAt(state(m, m), crowdedPage, limit)).toBe(m)
  })

  it("is undefined for a page short of the limit, an empty page, or one that spans two milliseconds", () => {
    expect(crowdedAt(state(0, 2 * m), crowdedPage.slice(0, 2), limit)).toBeUndefined()
    expect(crowdedAt(state(0, 2 * m), [], limit)).toBeUndefined()
    expect(crowdedAt(state(0, 2 * m), [bill("a", m), bill("b", m), bill("c", m + 1)], limit)).toBeUndefined()
    expect(crowdedAt(state(0, 2 * m), [bill("a", m - 1), bill("b", m), bill("c", m)], limit)).toBeUndefined()
  })

  it("is undefined when the millisecond lies outside what the walk still reads", () => {
    expect(crowdedAt(state(m + 1, 2 * m), crowdedPage, limit)).toBeUndefined()
    expect(crowdedAt(state(0, m - 1), crowdedPage, limit)).toBeUndefined()
  })
})

describe("readCrowded", () => {
  const read = (walk: SpotWalkState, pages: ReadonlyArray<Listed<Bill>>) => {
    const list = listing(pages)
    return Effect.map(
      Effect.either(readCrowded(walk, m, crowdedPage, list.more, limit, "contractBills")),
      (result) => ({ result, served: list.served() })
    )
  }

  it.effect("newest-first: reads the millisecond on, then leaves the window below it", () =>
    Effect.gen(function* () {
      const { result, served } = yield* read(state(0, 2 * m), [
        { items: [bill("d", m), bill("e", m), bill("f", m)] },
        { items: [bill("g", m), bill("z", m - 5)] }
      ])
      expect(served).toBe(2)
      if (result._tag === "Left") return expect.fail(result.left.message)
      expect(result.right.requests).toBe(2)
      expect(ids(result.right.step.bills)).toEqual(["a", "b", "c", "d", "e", "f", "g"])
      expect(result.right.step.order).toBe("newest-first")
      expect(result.right.step.next).toMatchObject({ lo: 0, hi: m - 1, order: "newest-first", edgeBillIds: [] })
    })
  )

  it.effect("oldest-first: leaves the window above it, down to a window of one millisecond", () =>
    Effect.gen(function* () {
      const { result } = yield* read(state(0, m + 1), [{ items: [bill("d", m), bill("z", m + 1)] }])
      if (result._tag === "Left") return expect.fail(result.left.message)
      expect(ids(result.right.step.bills)).toEqual(["a", "b", "c", "d"])
      expect(result.right.step.order).toBe("oldest-first")
      // One millisecond left above: it must still be read.
      expect(result.right.step.next).toMatchObject({ lo: m + 1, hi: m + 1, order: "oldest-first" })
    })
  )

  it.effect("nothing is left when the millisecond is the window's edge on the listing's side", () =>
    Effect.gen(function* () {
      const { result } = yield* read(state(m, 2 * m), [{ items: [bill("d", m), bill("z", m - 1)] }])
      if (result._tag === "Left") return expect.fail(result.left.message)
      expect(result.right.step.next).toBeUndefined()
    })
  )

  it.effect("a listing that ends inside the millisecond (a short page, or hasNextPage false) ends the window", () =>
    Effect.gen(function* () {
      const short = yield* read(state(0, 2 * m, { order: "oldest-first" }), [{ items: [bill("d", m)] }])
      if (short.result._tag === "Left") return expect.fail(short.result.left.message)
      expect(ids(short.result.right.step.bills)).toEqual(["a", "b", "c", "d"])
      expect(short.result.right.step).toMatchObject({ order: "oldest-first", next: undefined })
      // A full page that says nothing follows: no further request, even with a cursor.
      const last = yield* read(state(0, 2 * m), [
        { items: [bill("d", m), bill("e", m), bill("f", m)], last: true },
        { items: [bill("g", m)] }
      ])
      expect(last.served).toBe(1)
      if (last.result._tag === "Left") return expect.fail(last.result.left.message)
      expect(ids(last.result.right.step.bills)).toEqual(["a", "b", "c", "d", "e", "f"])
      expect(last.result.right.step.next).toBeUndefined()
    })
  )

  it.effect("skips the bills the walk emitted at the millisecond already, and only those", () =>
    Effect.gen(function* () {
      const edge = yield* read(state(0, 2 * m, { edgeMillisecond: m, edgeBillIds: ["b", "d"] }), [
        { items: [bill("d", m), bill("z", m - 1)] }
      ])
      if (edge.result._tag === "Left") return expect.fail(edge.result.left.message)
      expect(ids(edge.result.right.step.bills)).toEqual(["a", "c"])
      // Ids kept for another millisecond do not hide bills of this one.
      const other = yield* read(state(0, 2 * m, { edgeMillisecond: m + 1, edgeBillIds: ["b", "d"] }), [
        { items: [bill("d", m), bill("z", m - 1)] }
      ])
      if (other.result._tag === "Left") return expect.fail(other.result.left.message)
      expect(ids(other.result.right.step.bills)).toEqual(["a", "b", "c", "d"])
    })
  )

  const fails = (walk: SpotWalkState, pages: ReadonlyArray<Listed<Bill>>, text: RegExp) =>
    Effect.gen(function* () {
      const { result } = yield* read(walk, pages)
      if (result._tag === "Right") return expect.fail("expected BillsIncomplete")
      expect(result.left).toBeInstanceOf(BillsIncomplete)
      expect(result.left).toMatchObject({ operation: "contractBills", millisecond: m })
      expect(result.left.message).toMatch(text)
    })

  it.effect("a cursor that stops inside the millisecond fails, naming it", () =>
    fails(
      state(0, 2 * m),
      [{ items: [bill("d", m), bill("e", m), bill("f", m)], more: undefined }],
      // A listing of one page gives its full page no cursor.
      /cursor stopped before the millisecond's end/
    )
  )

  it.effect("a cursor that brings nothing new fails instead of going round for ever", () =>
    fails(
      state(0, 2 * m),
      [{ items: [bill("a", m), bill("b", m), bill("c", m)] }, { items: [bill("d", m)] }],
      /cursor stopped before the millisecond's end/
    )
  )

  it.effect("a page over the limit fails", () =>
    fails(
      state(0, 2 * m),
      [{ items: [bill("d", m), bill("e", m), bill("f", m), bill("g", m)] }],
      /returned 4 bills for a limit of 3/
    )
  )

  it.effect("bills of the millisecond after a later one fail: the cursor listed out of time order", () =>
    fails(state(0, 2 * m), [{ items: [bill("d", m), bill("z", m + 1), bill("e", m)] }], /out of time order/)
  )

  it.effect("a listing that turns to the other order than the walk learnt fails", () =>
    fails(
      state(0, 2 * m, { order: "newest-first" }),
      [{ items: [bill("z", m + 1)] }],
      /listed bills newest-first and then oldest-first/
    )
  )
})
