/**
 * The spot pool's plan, rule by rule, as the synchronous state it is: where a segment is cut,
 * how many walks Little's law wants, the room the buffer bound leaves, and what the rest of the
 * window is after a page. The pool tests check the whole walk; these pin each rule.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  cut,
  densityOf,
  makeSpotPlan,
  rateHorizonMillis,
  readDensity,
  type Segment,
  sliceCut
} from "../../src/internal/spotPlan.js"
import type { SpotWalkState } from "../../src/internal/spotWalk.js"

const limit = 100
const piecePages = 2

/** A walk over `[lo, hi]` that has learned the order; density 1 bill/ms means 100 ms a page. */
const state = (lo: number, hi: number, order: SpotWalkState["order"] = "newest-first"): SpotWalkState => ({
  lo,
  hi,
  inclusiveAfter: true,
  inclusiveBefore: false,
  order,
  edgeMillisecond: hi,
  edgeBillIds: ["x"]
})

const plan = (start: SpotWalkState, density: number | undefined, concurrency = 4, now = 0) =>
  makeSpotPlan(start, density, { concurrency, limit, piecePages }, now)

/** The segments from the head on, as `[lo, hi, status]`. */
const segments = (p: ReturnType<typeof plan>) => {
  const out: Array<[number, number, Segment["status"]]> = []
  for (let s = p.head(); s !== undefined; s = s.next) out.push([s.state.lo, s.state.hi, s.status])
  return out
}

describe("cut", () => {
  it("newest-first keeps the latest `pages` pages of time and hands the earlier part on", () => {
    const parts = cut(state(0, 9999), 1, 2, limit)
    expect(parts?.keep).toMatchObject({ lo: 9800, hi: 9999, edgeMillisecond: 9999, edgeBillIds: ["x"] })
    expect(parts?.rest).toEqual({ ...state(0, 9799), edgeMillisecond: undefined, edgeBillIds: [] })
  })

  it("oldest-first keeps the earliest part and hands the later part on", () => {
    const parts = cut(state(0, 9999, "oldest-first"), 1, 2, limit)
    expect(parts?.keep).toMatchObject({ lo: 0, hi: 199 })
    expect(parts?.rest).toMatchObject({ lo: 200, hi: 9999, edgeBillIds: [] })
  })

  it("does not cut a window less than half a piece longer than the piece, nor one of unknown order", () => {
    expect(cut(state(0, 299), 1, 2, limit)).toBeUndefined()
    expect(cut(state(0, 300), 1, 2, limit)).toBeDefined()
    expect(cut(state(0, 9999, "unknown"), 1, 2, limit)).toBeUndefined()
  })

  it("stays inside the window when the piece spans more than 2^31 ms", () => {
    // A piece of 4e9 ms (2 pages at 5e-8 bills/ms) over a window of 3.9e9 ms: nothing to cut.
    expect(cut(state(1e9, 1e9 + 3.9e9), 5e-8, 2, limit)).toBeUndefined()
    const parts = cut(state(1e9, 1e9 + 7e9), 5e-8, 2, limit)
    expect(parts?.rest).toMatchObject({ lo: 1e9, hi: 1e9 + 3e9 })
  })

  it("under a width rule, keeps a whole number of requests' widths when the piece is wider than one", () => {
    // 2 pages at 1 bill/ms: 200 ms; one request covers 69 ms (a width of 70): 2 × 69 kept.
    const parts = cut(state(0, 9999), 1, 2, limit, 70)
    expect(parts?.keep).toMatchObject({ lo: 9862, hi: 9999 })
    expect(parts?.rest).toMatchObject({ lo: 0, hi: 9861 })
    // A piece narrower than one request is cut by the density alone.
    expect(cut(state(0, 9999), 1, 2, limit, 1000)?.keep).toMatchObject({ lo: 9800, hi: 9999 })
  })
})

describe("densityOf", () => {
  it("is the bills of a full page over the time it narrowed the window by, in the server's order", () => {
    expect(densityOf(state(0, 999), state(0, 950), 100)).toBe(2)
    expect(densityOf(state(0, 999, "oldest-first"), state(49, 999, "oldest-first"), 100)).toBe(2)
    expect(densityOf(state(0, 999), state(0, 999, "unknown"), 100)).toBeUndefined()
  })
})

describe("makeSpotPlan", () => {
  it("claims the head first and, before any answer, wants three walks: it cuts the head's far part off", () => {
    const p = plan(state(0, 9999), 1)
    const claim = p.claimNext(0)
    expect(claim?.claimed).toBe(p.head())
    expect(segments(p)).toEqual([
      [9800, 9999, "walking"],
      [0, 9799, "pending"]
    ])
    expect(claim?.created).toBe(p.head()?.next)
  })

  it("does not cut a segment whose density is unknown", () => {
    const p = plan(state(0, 9999), undefined)
    expect(p.claimNext(0)?.created).toBeUndefined()
    expect(segments(p)).toEqual([[0, 9999, "walking"]])
  })

  it("claims pending segments in output order, cutting while walks are wanted, and none past `concurrency` walks", () => {
    const p = plan(state(0, 9999), 1, 3)
    p.claimNext(0)
    const second = p.claimNext(0)
    expect(second?.claimed.state).toMatchObject({ lo: 9600, hi: 9799 })
    expect(second?.created?.state).toMatchObject({ lo: 0, hi: 9599 })
    // The third walk reaches the three wanted before any answer: it keeps its whole part.
    expect(p.claimNext(0)?.created).toBeUndefined()
    expect(p.room()).toBe(false)
    expect(p.claimNext(0)).toBeUndefined()
    expect(segments(p)).toEqual([
      [9800, 9999, "walking"],
      [9600, 9799, "walking"],
      [0, 9599, "walking"]
    ])
  })

  it("cuts no more once the walks reach what Little's law wants from the rate and the fastest fetch", () => {
    // One answer in 1 s at 1 ms a fetch: 2 × (1 / 1000) × 1 rounds up to one walk wanted.
    const p = plan(state(0, 99_999), 1, 9)
    const head = p.claimNext(0)?.claimed as Segment
    const after = p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: head.state.hi - 100 }, bills: 100, received: 100 },
      { sent: 999, now: 1000 }
    )
    expect(after.created).toBeUndefined()
    expect(p.cutOff(head, 1000)).toBeUndefined()
  })

  it("reads a window too short for a piece as one walk: never halved, however long it takes", () => {
    // 250 ms at 1 bill/ms: 2.5 pages, too short to keep a piece of 2 pages (that needs 3).
    const short = plan(state(0, 249), 1, 9)
    expect(short.claimNext(0)?.created).toBeUndefined()
    const head = short.head() as Segment
    expect(short.cutOff(head, 10 * rateHorizonMillis)).toBeUndefined()
    const after = short.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: 149 }, bills: 100, received: 100 },
      { sent: 10 * rateHorizonMillis - 300, now: 10 * rateHorizonMillis }
    )
    expect(after.created).toBeUndefined()
    expect(segments(short)).toEqual([[0, 149, "walking"]])
  })

  it("halves a short segment of a window cut into pieces, after the pool's first window, when no segment is long", () => {
    // 450 ms at 1 bill/ms: a piece of 2 pages (200 ms) is cut off first, leaving 2.5 pages.
    const start = state(0, 449)
    const early = plan(start, 1, 9)
    expect(early.claimNext(rateHorizonMillis - 1)?.created?.state).toMatchObject({ lo: 0, hi: 249 })
    // Not in the pool's first window: the rest walks whole.
    expect(early.claimNext(rateHorizonMillis - 1)?.created).toBeUndefined()
    const late = plan(start, 1, 9)
    expect(late.claimNext(rateHorizonMillis)?.created?.state).toMatchObject({ lo: 0, hi: 249 })
    expect(late.claimNext(rateHorizonMillis)?.created?.state).toMatchObject({ lo: 0, hi: 149 })
    expect(segments(late)).toEqual([
      [250, 449, "walking"],
      [150, 249, "walking"],
      [0, 149, "pending"]
    ])
  })

  it("measures the density on a full page only, and cuts by it", () => {
    const p = plan(state(0, 99_999), undefined, 9)
    const head = p.claimNext(0)?.claimed as Segment
    // A short page cannot measure: 50 records over 100 ms.
    p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: 99_899 }, bills: 50, received: 50 },
      { sent: 0, now: 0 }
    )
    expect(head.density).toBeUndefined()
    // A full page of 100 records over 50 ms: 2 bills/ms, so a piece of 2 pages is 100 ms.
    const after = p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: 99_850 }, bills: 100, received: 100 },
      { sent: 0, now: 0 }
    )
    expect(head.density).toBe(2)
    expect(after.schedule).toBe(true)
    expect(after.created?.state).toMatchObject({ lo: 0, hi: 99_750 })
    expect(head.state).toMatchObject({ lo: 99_751, hi: 99_850 })
  })

  it("the rest after a page is the whole window beyond the segment's edge; after a segment, beyond its end", () => {
    const p = plan(state(1000, 9999), 1, 4)
    const head = p.claimNext(0)?.claimed as Segment
    const after = p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: 9899 }, bills: 100, received: 100 },
      { sent: 0, now: 0 }
    )
    expect(after.rest).toMatchObject({ lo: 1000, hi: 9899 })
    const rest = p.afterEnd(head, { first: false, bills: 10 }, { sent: 0, now: 1 })
    expect(rest).toMatchObject({ lo: 1000, hi: head.state.lo - 1, edgeBillIds: [] })

    const oldest = plan(state(1000, 9999, "oldest-first"), 1, 1)
    const only = oldest.claimNext(0)?.claimed as Segment
    expect(oldest.afterEnd(only, { first: false, bills: 0 }, { sent: 0, now: 1 })).toBeUndefined()
  })

  it("a segment that ends on its first page leaves the pending ones after it to measure for themselves", () => {
    const p = plan(state(0, 9999), 1, 4)
    const head = p.claimNext(0)?.claimed as Segment
    const pending = head.next as Segment
    expect(pending.density).toBe(1)
    p.afterEnd(head, { first: true, bills: 3 }, { sent: 0, now: 1 })
    expect(pending.density).toBeUndefined()
  })

  it("room: segments after the head that hold bills count against the buffer's bound; empty finished ones do not", () => {
    const p = plan(state(0, 99_999), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    const second = p.claimNext(0)?.claimed as Segment
    expect(p.room()).toBe(false)
    // The second segment ends holding bills: two walks are one, but it still holds its pages.
    p.afterEnd(second, { first: false, bills: 5 }, { sent: 0, now: 1 })
    p.afterEnd(head, { first: false, bills: 0 }, { sent: 0, now: 1 })
    p.emitted(head, 0, true)
    expect(p.head()).toBe(second)
    // Now the second is the head, whose pages go out as pulled: nothing after it holds bills.
    expect(p.room()).toBe(true)

    const q = plan(state(0, 99_999), 1, 2)
    const qHead = q.claimNext(0)?.claimed as Segment
    const qSecond = q.claimNext(0)?.claimed as Segment
    q.afterEnd(qSecond, { first: false, bills: 0 }, { sent: 0, now: 1 })
    expect(q.room()).toBe(true)
    q.afterEnd(qHead, { first: false, bills: 1 }, { sent: 0, now: 1 })
    expect(q.room()).toBe(true)
  })

  it("does not halve a short segment while another is long enough to cut a piece off", () => {
    const p = plan(state(0, 99_999), 1, 9, 0)
    const head = p.claimNext(rateHorizonMillis)?.claimed as Segment
    expect(segments(p)).toEqual([
      [99_800, 99_999, "walking"],
      [0, 99_799, "pending"]
    ])
    expect(p.cutOff(head, rateHorizonMillis)).toBeUndefined()
  })

  it("a page cuts nothing off while a segment already waits to start", () => {
    const p = plan(state(0, 99_999), 1, 9)
    const head = p.claimNext(0)?.claimed as Segment
    const after = p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: 99_899 }, bills: 100, received: 100 },
      { sent: 0, now: 10 }
    )
    expect(after).toMatchObject({ created: undefined, schedule: false })
    expect(segments(p)).toHaveLength(2)
  })

  it("holds back a pending segment while `concurrency` segments after the head walk or hold bills", () => {
    const timing = { sent: 0, now: 1000 }
    const p = plan(state(0, 99_999), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    const second = p.claimNext(0)?.claimed as Segment
    p.afterEnd(head, { first: false, bills: 5 }, timing)
    // The head is done but not emitted: it is not counted; the second walks alone.
    expect(p.room()).toBe(true)
    const page = p.afterPage(
      second,
      { before: second.state, next: { ...second.state, hi: second.state.hi - 100 }, bills: 100, received: 100 },
      timing
    )
    const third = p.claimNext(timing.now)?.claimed as Segment
    expect(third).toBe(page.created)
    p.afterEnd(third, { first: false, bills: 5 }, timing)
    // The second walks and the third holds bills: the buffer's bound is reached.
    expect(p.room()).toBe(false)
    const waiting = p.cutOff(second, timing.now)
    expect(waiting?.status).toBe("pending")
    expect(p.claimNext(timing.now)).toBeUndefined()
    // The consumer moves on: the head's pages go out, not its last yet, then its last.
    p.emitted(head, 2, false)
    expect(p.head()).toBe(head)
    p.emitted(head, 3, true)
    expect(p.head()).toBe(second)
    expect(p.claimNext(timing.now)?.claimed).toBe(waiting)
  })

  it("segments after the head read to their end with no bills take no room", () => {
    const timing = { sent: 0, now: 1000 }
    const p = plan(state(0, 99_999), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    const second = p.claimNext(0)?.claimed as Segment
    p.afterEnd(head, { first: false, bills: 5 }, timing)
    const page = p.afterPage(
      second,
      { before: second.state, next: { ...second.state, hi: second.state.hi - 100 }, bills: 100, received: 100 },
      timing
    )
    const third = p.claimNext(timing.now)?.claimed as Segment
    expect(third).toBe(page.created)
    p.afterEnd(third, { first: false, bills: 0 }, timing)
    expect(p.room()).toBe(true)
  })

  it("counts completed requests, not failed ones, and a failed segment walks no more", () => {
    const p = plan(state(0, 99_999), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    const second = p.claimNext(0)?.claimed as Segment
    p.afterFailure(second, { sent: 0, now: 5 })
    expect(second.status).toBe("done")
    p.afterEnd(head, { first: false, bills: 1 }, { sent: 0, now: 5 })
    expect(p.requests()).toBe(1)
  })
})

describe("densityOf, at the edges", () => {
  it("oldest-first measures from the window's start before the page, wherever it lies", () => {
    expect(densityOf(state(100, 999, "oldest-first"), state(149, 999, "oldest-first"), 100)).toBe(2)
  })

  it("an empty page measures nothing", () => {
    expect(densityOf(state(0, 999), state(0, 950), 0)).toBeUndefined()
  })
})

describe("makeSpotPlan, the rest of the window", () => {
  it("oldest-first, the rest after a page runs from the segment's edge to the window's end", () => {
    const p = plan(state(1000, 9999, "oldest-first"), 1, 4)
    const head = p.claimNext(0)?.claimed as Segment
    expect(head.state).toMatchObject({ lo: 1000, hi: 1199 })
    const after = p.afterPage(
      head,
      { before: head.state, next: { ...head.state, lo: 1100 }, bills: 100, received: 100 },
      { sent: 0, now: 0 }
    )
    expect(after.rest).toMatchObject({ lo: 1100, hi: 9999 })
  })

  it("while the order is unknown, the rest after a page is the walk's own state", () => {
    const p = plan(state(0, 9999, "unknown"), undefined, 4)
    const head = p.claimNext(0)?.claimed as Segment
    const next = { ...head.state, hi: 9000 }
    const after = p.afterPage(head, { before: head.state, next, bills: 50, received: 50 }, { sent: 0, now: 0 })
    expect(after.rest).toEqual(next)
  })

  it("oldest-first, the rest after a segment is everything after its end, as a fresh walk", () => {
    const p = plan(state(1000, 9999, "oldest-first"), 1, 4)
    const head = p.claimNext(0)?.claimed as Segment
    const rest = p.afterEnd(head, { first: false, bills: 0 }, { sent: 0, now: 1 })
    expect(rest).toMatchObject({ lo: 1200, hi: 9999, edgeMillisecond: undefined, edgeBillIds: [] })
  })

  it("newest-first, nothing is left after the segment that reaches the window's start", () => {
    const p = plan(state(1000, 9999), 1, 1)
    const only = p.claimNext(0)?.claimed as Segment
    expect(only.state).toMatchObject({ lo: 1000, hi: 9999 })
    expect(p.afterEnd(only, { first: false, bills: 0 }, { sent: 0, now: 1 })).toBeUndefined()
  })
})

/**
 * Walks the plan runs at the last answer: the head (density unknown at first) reads short pages,
 * then a full one of 1 bill/ms, which lets it cut; the pieces are then claimed while walks are
 * wanted. The pool began at `t0`; a concurrency of 9 leaves Little's law the last word.
 */
const walksAfter = (answers: ReadonlyArray<{ readonly sent: number; readonly now: number }>, t0: number) => {
  const p = plan(state(0, 999_999), undefined, 9, t0)
  const head = p.claimNext(t0)?.claimed as Segment
  answers.forEach((timing, k) => {
    const received = k === answers.length - 1 ? 100 : 50
    const next = { ...head.state, hi: head.state.hi - 100 }
    p.afterPage(head, { before: head.state, next, bills: received, received }, timing)
  })
  const at = answers[answers.length - 1]?.now as number
  while (p.claimNext(at) !== undefined) {}
  return segments(p).filter(([, , status]) => status === "walking").length
}

describe("makeSpotPlan, walks wanted by Little's law", () => {
  const t0 = 10_000
  const tenAnswers = (fetch: number) =>
    Array.from({ length: 10 }, (_, k) => ({ sent: t0 + 1100 + 10 * k - fetch, now: t0 + 1100 + 10 * k }))

  it("wants twice the rate over the last second times the fastest fetch", () => {
    // 10 answers in the last second: 2 × 10/1000 × 100 ms = 2 walks; × 250 ms = 5 walks.
    expect(walksAfter(tenAnswers(100), t0)).toBe(2)
    expect(walksAfter(tenAnswers(250), t0)).toBe(5)
  })

  it("takes the fastest fetch, not the latest", () => {
    const answers = tenAnswers(250)
    answers[3] = { sent: (answers[3]?.now as number) - 100, now: answers[3]?.now as number }
    expect(walksAfter(answers, t0)).toBe(2)
  })

  it("in the pool's first second, measures the rate over the time since it began", () => {
    // 5 answers in the first 100 ms, 20 ms each: 2 × 5/100 × 20 = 2 walks.
    const answers = Array.from({ length: 5 }, (_, k) => ({ sent: t0 + 20 * k, now: t0 + 20 * (k + 1) }))
    expect(walksAfter(answers, t0)).toBe(2)
  })

  it("forgets an answer once a whole second has passed since it", () => {
    // Ten answers at t0 + 1000 and one a second later: the ten count until then, not at it.
    const old = Array.from({ length: 10 }, () => ({ sent: t0 + 750, now: t0 + 1000 }))
    expect(walksAfter([...old, { sent: t0 + 1749, now: t0 + 1999 }], t0)).toBe(6)
    expect(walksAfter([...old, { sent: t0 + 1750, now: t0 + 2000 }], t0)).toBe(1)
  })

  it("does not count a walk whose unread part holds a page or less: it ends with its next page", () => {
    // One answer in 1 s at 400 ms a fetch wants one walk. The head, at 2 bills/ms, keeps 100 ms.
    const at = (left: number) => {
      const p = plan(state(0, 999_999), 2, 9, 0)
      const head = p.claimNext(0)?.claimed as Segment
      const pending = head.next as Segment
      const next = { ...head.state, hi: head.state.lo + left - 1 }
      p.afterPage(head, { before: head.state, next, bills: 50, received: 50 }, { sent: 600, now: 1000 })
      return p.cutOff(pending, 1000)
    }
    // 50 ms at 2 bills/ms: one page, so the walk is not counted and the pending one is cut.
    expect(at(50)).toBeDefined()
    // 51 ms: more than a page, so it is counted and the one walk wanted is there.
    expect(at(51)).toBeUndefined()
  })

  it("counts a walk whose density is unknown", () => {
    // Head, then a piece, then a pending rest; the head ends on its first page, so the rest
    // forgets its density and is claimed whole.
    const p = plan(state(0, 99_999), 1, 9, 0)
    const head = p.claimNext(0)?.claimed as Segment
    const piece = p.claimNext(0)?.claimed as Segment
    p.afterEnd(head, { first: true, bills: 0 }, undefined)
    const unknown = p.claimNext(0)?.claimed as Segment
    expect(unknown.density).toBeUndefined()
    // A full page of the piece at 4 bills/ms, one answer in 1 s at 800 ms: two walks wanted,
    // and the piece and the walk of unknown density are two.
    const next = { ...piece.state, hi: piece.state.hi - 24 }
    const after = p.afterPage(piece, { before: piece.state, next, bills: 100, received: 100 }, { sent: 200, now: 1000 })
    expect(after.schedule).toBe(true)
    expect(after.created).toBeUndefined()
  })
})

describe("makeSpotPlan, halving", () => {
  it("counts the pages left at the measured density", () => {
    // 225 ms at 2 bills/ms: a piece of 100 ms, then 125 ms (2.5 pages) left, halved.
    const p = plan(state(0, 224), 2, 9)
    expect(p.claimNext(rateHorizonMillis)?.created?.state).toMatchObject({ lo: 0, hi: 124 })
    expect(p.claimNext(rateHorizonMillis)?.created?.state).toMatchObject({ lo: 0, hi: 74 })
  })

  it("does not halve a segment of less than two pages", () => {
    // 380 ms at 1 bill/ms: a piece of 200 ms, then 1.8 pages left.
    const p = plan(state(0, 379), 1, 9)
    expect(p.claimNext(rateHorizonMillis)?.created?.state).toMatchObject({ lo: 0, hi: 179 })
    expect(p.claimNext(rateHorizonMillis)?.created).toBeUndefined()
  })

  it("halves nothing on account of a piece that ended on its first page: the window was not long", () => {
    // An incremental pass: new bills close together after a quiet overlap. The head measured them
    // dense, so the quiet part was cut off as a piece; it ended on its first page, empty.
    const p = plan(state(0, 449), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    const piece = p.claimNext(0)?.claimed as Segment
    expect(segments(p)).toEqual([
      [250, 449, "walking"],
      [0, 249, "walking"]
    ])
    p.afterEnd(piece, { first: true, bills: 0 }, { sent: 0, now: 600 })
    // Two walks are wanted (2 × 1/1000 × 600 ms), and the head's 2 pages could be halved.
    expect(p.cutOff(head, rateHorizonMillis)).toBeUndefined()
    expect(segments(p)).toEqual([
      [250, 449, "walking"],
      [0, 249, "done"]
    ])
  })

  it("counts the pool's first window from when it began", () => {
    const halves = (at: number) => {
      const p = plan(state(0, 449), 1, 9, 5000)
      p.claimNext(at)
      return p.claimNext(at)?.created
    }
    expect(halves(5000 + rateHorizonMillis - 1)).toBeUndefined()
    expect(halves(5000 + rateHorizonMillis)?.state).toMatchObject({ lo: 0, hi: 149 })
  })

  it("a segment whose density is unknown does not count as long: it may be short", () => {
    // Head, a piece, and a pending rest that forgets its density when the piece ends at once.
    const p = plan(state(0, 649), 1, 9)
    const head = p.claimNext(rateHorizonMillis)?.claimed as Segment
    const piece = p.claimNext(rateHorizonMillis)?.claimed as Segment
    expect(segments(p)).toEqual([
      [450, 649, "walking"],
      [250, 449, "walking"],
      [0, 249, "pending"]
    ])
    p.afterEnd(piece, { first: true, bills: 0 }, undefined)
    expect(p.cutOff(head, rateHorizonMillis)?.state).toMatchObject({ lo: 450, hi: 549 })
  })
})

describe("makeSpotPlan, bookkeeping", () => {
  it("counts a request per page and per end that fetched, and none for an end without a request", () => {
    const p = plan(state(0, 99_999), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    const second = p.claimNext(0)?.claimed as Segment
    p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: head.state.hi - 100 }, bills: 100, received: 100 },
      { sent: 0, now: 5 }
    )
    expect(p.requests()).toBe(1)
    p.afterEnd(second, { first: false, bills: 0 }, undefined)
    expect(p.requests()).toBe(1)
    p.afterEnd(head, { first: false, bills: 3 }, { sent: 5, now: 9 })
    expect(p.requests()).toBe(2)
  })

  /** Claims the head of `p` and hands it one page of `received` records over 100 ms. */
  const headAfterPage = (p: ReturnType<typeof plan>, received: number) => {
    const head = p.claimNext(0)?.claimed as Segment
    const next = { ...head.state, hi: head.state.hi - 100 }
    p.afterPage(head, { before: head.state, next, bills: received, received }, { sent: 0, now: 0 })
    return head
  }

  it("a short page keeps the density measured before", () => {
    const head = headAfterPage(plan(state(0, 99_999), 1, 9), 50)
    expect(head.density).toBe(1)
  })

  it("a segment that ends after its first page leaves the densities after it as they are", () => {
    const p = plan(state(0, 9999), 1, 9)
    const head = p.claimNext(0)?.claimed as Segment
    const pending = head.next as Segment
    p.afterEnd(head, { first: false, bills: 3 }, { sent: 0, now: 1 })
    expect(pending.density).toBe(1)
  })

  it("a segment that ends on its first page leaves walking segments' densities as they are", () => {
    const p = plan(state(0, 9999), 1, 9)
    const head = p.claimNext(0)?.claimed as Segment
    const piece = p.claimNext(0)?.claimed as Segment
    const pending = piece.next as Segment
    p.afterEnd(head, { first: true, bills: 0 }, { sent: 0, now: 1 })
    expect(piece.density).toBe(1)
    expect(pending.density).toBeUndefined()
  })

  it("a segment holds the bills of its pages until the consumer takes them", () => {
    const p = plan(state(0, 99_999), 1, 9)
    const head = headAfterPage(p, 100)
    expect(head.held).toBe(100)
    p.emitted(head, 60, false)
    expect(head.held).toBe(40)
  })

  it("room: a walk after the head counts against the buffer's bound before it holds a bill", () => {
    const p = plan(state(0, 99_999), 1, 2)
    const head = p.claimNext(0)?.claimed as Segment
    p.afterEnd(head, { first: false, bills: 5 }, undefined)
    const second = p.claimNext(0)?.claimed as Segment
    const third = p.claimNext(0)?.claimed as Segment
    p.afterEnd(third, { first: false, bills: 5 }, undefined)
    // One walk of two, but the second walks (holding nothing yet) and the third holds bills.
    expect(second.status).toBe("walking")
    expect(second.held).toBe(0)
    expect(p.room()).toBe(false)
  })
})

describe("makeSpotPlan, a full queue behind the head", () => {
  it("ends the segment with the page that finds its queue full and hands its unread part on whole", () => {
    const p = makeSpotPlan(state(0, 99_999), 1, { concurrency: 4, limit, piecePages, bufferPages: 2 }, 0)
    const head = p.claimNext(0)?.claimed as Segment
    const second = p.claimNext(0)?.claimed as Segment
    // Pages of 100 bills over 50 ms each, newest first.
    const nextOf = (segment: Segment) => ({ ...segment.state, hi: segment.state.hi - 50, edgeBillIds: ["y"] })
    const page = (segment: Segment, now: number, next = nextOf(segment)) =>
      p.afterPage(segment, { before: segment.state, next, bills: 100, received: 100 }, { sent: now - 5, now })
    // The head's pages go out as the consumer pulls them: its queue never ends it.
    expect(page(head, 10).last).toBe(false)
    expect(page(head, 20).last).toBe(false)
    expect(page(second, 30).last).toBe(false)
    // Its queue is full now; the next page is the one its walk would wait to hand over.
    expect(page(second, 35).last).toBe(false)
    const unread = nextOf(second)
    const full = page(second, 40, unread)
    expect(full.last).toBe(true)
    expect(second.status).toBe("done")
    // The rest, edge ids and all, waits for a walk of its own; the segments after it follow it.
    expect(unread.hi).toBeGreaterThan(unread.lo)
    expect(full.created?.state).toEqual(unread)
    expect(full.created?.status).toBe("pending")
    expect(second.next).toBe(full.created)
    expect(full.schedule).toBe(true)
    // Once emitted, the segment's place as head goes to the rest.
    p.emitted(head, 200, true)
    p.emitted(second, 100, false)
    p.emitted(second, 100, false)
    p.emitted(second, 100, true)
    expect(p.head()).toBe(full.created)
  })
})

describe("under a width rule (the futures interface: 100 days a request)", () => {
  // A request covers at most 1,000 ms between its bounds, so 999 ms of the window (both bounds widened).
  const maxWidth = 1000
  const widthPlan = (start: SpotWalkState, density: number | undefined, concurrency = 4) =>
    makeSpotPlan(start, density, { concurrency, limit, piecePages, maxWidth }, 0)

  it("sliceCut keeps what one request covers at the end the server lists first, and hands the rest on", () => {
    expect(sliceCut(state(0, 9999), maxWidth)).toMatchObject({
      keep: { lo: 9001, hi: 9999 },
      rest: { lo: 0, hi: 9000 }
    })
    expect(sliceCut(state(0, 9999, "oldest-first"), maxWidth)).toMatchObject({
      keep: { lo: 0, hi: 998 },
      rest: { lo: 999, hi: 9999 }
    })
    expect(sliceCut(state(0, 998), maxWidth)).toBeUndefined()
    expect(sliceCut(state(0, 9999, "unknown"), maxWidth)).toBeUndefined()
  })

  it("cuts a segment of unknown density one request's width at a time (a gap in the history), not whole", () => {
    const p = widthPlan(state(0, 9999), undefined)
    expect(p.claimNext(0)?.created?.state).toMatchObject({ lo: 0, hi: 9000 })
    // A part no wider than a request ends with it: it does not count as a walk, so cuts go on.
    expect(p.claimNext(0)?.created?.state).toMatchObject({ lo: 0, hi: 8001 })
    expect(p.claimNext(0)?.created?.state).toMatchObject({ lo: 0, hi: 7002 })
    expect(segments(p).slice(0, 3)).toEqual([
      [9001, 9999, "walking"],
      [8002, 9000, "walking"],
      [7003, 8001, "walking"]
    ])
  })

  it("a page short of the limit that leaves a slice's rest measures the slice; a sparse segment is cut by width", () => {
    expect(readDensity(state(0, 9999), state(0, 8999), 0)).toBe(0)
    expect(readDensity(state(0, 9999), state(0, 8999), 50)).toBe(0.05)
    const p = widthPlan(state(0, 99_999), 1, 9)
    const head = p.claimNext(0)?.claimed as Segment
    p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: head.state.hi - 999 }, bills: 10, received: 10 },
      { sent: 0, now: 1 }
    )
    expect(head.density).toBe(10 / 999)
    // 10 bills in a request's width: a piece of 2 pages at that density would be 20 requests wide.
    const sparse = widthPlan(state(0, 99_999), 10 / 999, 9)
    expect(sparse.claimNext(0)?.created?.state).toMatchObject({ lo: 0, hi: 99_000 })
    expect(segments(sparse)[0]).toEqual([99_001, 99_999, "walking"])
  })

  it("a sparse segment waiting does not keep a dense walk from cutting its far part off", () => {
    const p = widthPlan(state(0, 99_999), undefined, 9)
    const head = p.claimNext(0)?.claimed as Segment
    expect(segments(p)).toEqual([
      [99_001, 99_999, "walking"],
      [0, 99_000, "pending"]
    ])
    // The head's first request finds its slice dense (1 bill/ms): it cuts a piece's far part off
    // although the gap's part waits, which ends with one request.
    const after = p.afterPage(
      head,
      { before: head.state, next: { ...head.state, hi: 99_899 }, bills: 100, received: 100 },
      { sent: 0, now: 10 }
    )
    expect(after.schedule).toBe(true)
    expect(after.created?.state).toMatchObject({ lo: 99_001, hi: 99_697 })
  })
})
