/**
 * The width and horizon rules of the spot walk at their edges: `spotClip` (the exchange serves
 * nothing before `servedFrom`), `spotSlice` (a window wider than the exchange accepts is read a
 * slice at a time) and `spotJoin` (the rest of the window beside a slice). Every millisecond of
 * the window is read once: none dropped at a clip, none read twice beside a slice.
 */
import { describe, expect, it } from "@effect/vitest"
import { type SpotWalkState, spotClip, spotJoin, spotSlice } from "../../src/internal/spotWalk.js"

const state = (fields: Partial<SpotWalkState> = {}): SpotWalkState => ({
  lo: 1_000,
  hi: 1_999,
  inclusiveAfter: false,
  inclusiveBefore: false,
  order: "newest-first",
  edgeBillIds: [],
  ...fields
})

/** The milliseconds `[lo, hi]` of a state, as a list. */
const millis = (part: { readonly lo: number; readonly hi: number }) =>
  Array.from({ length: Math.max(0, part.hi - part.lo + 1) }, (_, i) => part.lo + i)

describe("spotClip", () => {
  it("keeps the window when the horizon is before it or on its first millisecond", () => {
    expect(spotClip(state(), undefined)).toEqual(state())
    expect(spotClip(state(), 500)).toEqual(state())
    expect(spotClip(state(), 1_000)).toEqual(state())
  })

  it("starts the window at the horizon inside it, down to its very last millisecond", () => {
    expect(spotClip(state(), 1_500)).toMatchObject({ lo: 1_500, hi: 1_999 })
    // The horizon on the window's last millisecond leaves that millisecond to read.
    expect(spotClip(state(), 1_999)).toMatchObject({ lo: 1_999, hi: 1_999 })
    // Past it, nothing of the window is served.
    expect(spotClip(state(), 2_000)).toBeUndefined()
  })

  it("keeps the edge millisecond's ids only when the edge is still inside the window", () => {
    const edged = state({ edgeMillisecond: 1_600, edgeBillIds: ["a", "b"] })
    expect(spotClip(edged, 1_600)).toMatchObject({ edgeMillisecond: 1_600, edgeBillIds: ["a", "b"] })
    expect(spotClip(edged, 1_601)).toMatchObject({ edgeMillisecond: undefined, edgeBillIds: [] })
  })
})

describe("spotSlice", () => {
  it("the whole window when it fits the width (its bounds widened by a millisecond each)", () => {
    expect(spotSlice(state(), undefined)).toEqual(state())
    expect(spotSlice(state(), 1_001)).toEqual(state())
    // Well inside the width: no slice reaches out of the window.
    const narrow = state({ lo: 1_000, hi: 1_010 })
    expect(spotSlice(narrow, 1_001)).toEqual(narrow)
    expect(spotSlice({ ...narrow, order: "oldest-first" }, 1_001)).toEqual({ ...narrow, order: "oldest-first" })
  })

  it("the end the server lists first when it does not fit", () => {
    expect(spotSlice(state(), 1_000)).toMatchObject({ lo: 1_001, hi: 1_999 })
    expect(spotSlice(state({ order: "oldest-first" }), 1_000)).toMatchObject({ lo: 1_000, hi: 1_998 })
    expect(spotSlice(state(), 102)).toMatchObject({ lo: 1_899, hi: 1_999 })
  })
})

describe("spotJoin", () => {
  it("a slice read to its end leaves exactly the rest of the window: every millisecond once", () => {
    for (const order of ["newest-first", "oldest-first"] as const) {
      const whole = state({ order })
      const slice = spotSlice(whole, 102)
      const joined = spotJoin(whole, slice, { bills: [], next: undefined })
      const rest = joined.next
      expect(rest).toBeDefined()
      if (rest === undefined) continue
      const read = [...millis(slice), ...millis(rest)].sort((a, b) => a - b)
      // The slice and the rest together are the window, with no millisecond twice (the slice's
      // first millisecond included) and none missing.
      expect(read).toEqual(millis(whole))
      expect(rest).toMatchObject({ edgeMillisecond: undefined, edgeBillIds: [] })
    }
  })

  it("a slice not yet read to its end carries the walk on over the whole window beside it", () => {
    const whole = state()
    const slice = spotSlice(whole, 102)
    const next = { ...slice, hi: 1_950, edgeMillisecond: 1_950, edgeBillIds: ["x"] }
    expect(spotJoin(whole, slice, { bills: [], next })).toEqual({
      bills: [],
      next: { ...next, lo: 1_000 }
    })
  })

  it("a slice at the start, not read to its end, carries the walk on to the window's end", () => {
    const whole = state({ order: "oldest-first" })
    const slice = spotSlice(whole, 102)
    const next = { ...slice, lo: 1_050, edgeMillisecond: 1_050, edgeBillIds: ["y"] }
    expect(spotJoin(whole, slice, { bills: [], next })).toEqual({ bills: [], next: { ...next, hi: 1_999 } })
  })

  it("a slice at the later end that shows the server lists oldest first: no bills, the whole window again", () => {
    // The rest would be two ranges; the walk starts over from the start with the order it learned,
    // and the bills of this slice come again then (emitted now, they would come twice).
    const whole = state({ order: "unknown" })
    const slice = spotSlice(whole, 102)
    expect(slice).toMatchObject({ lo: 1_899, hi: 1_999 })
    const next = {
      ...slice,
      lo: 1_950,
      order: "oldest-first" as const,
      inclusiveAfter: true,
      edgeMillisecond: 1_950,
      edgeBillIds: ["z"]
    }
    expect(spotJoin(whole, slice, { bills: [], next })).toEqual({
      bills: [],
      next: { ...whole, order: "oldest-first", inclusiveAfter: true, inclusiveBefore: false }
    })
  })

  it("the whole window as its own slice: the step as it is", () => {
    const step = { bills: [], next: state({ hi: 1_500 }) }
    expect(spotJoin(state(), state(), step)).toBe(step)
  })
})
