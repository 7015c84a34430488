import type { StoreCoverage } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import { describeCoverage, readsWhole } from "../src/cli/FromStore.js"

const day = 86_400_000
const may = Date.UTC(2025, 4, 1)

const coverage = (fields: Partial<StoreCoverage>): StoreCoverage => ({
  account: "main",
  kind: "spot",
  coveredFrom: 0,
  coveredTo: may,
  unfinished: false,
  agedOut: [],
  bills: 20_000,
  ...fields
})

describe("what a read from a store says it holds", () => {
  it("one phrase per kind: the window held completely, and an unfinished sync", () => {
    expect(describeCoverage(coverage({}))).toBe(
      "spot: the store holds every bill up to 2025-05-01T00:00:00.000Z (20000 bills)"
    )
    expect(describeCoverage(coverage({ coveredFrom: may - day, bills: 1 }))).toBe(
      "spot: the store holds every bill from 2025-04-30T00:00:00.000Z up to 2025-05-01T00:00:00.000Z (1 bill)"
    )
    expect(describeCoverage(coverage({ unfinished: true, bills: 20_100 }))).toBe(
      "spot: the store holds every bill up to 2025-05-01T00:00:00.000Z; a newer sync is under way or unfinished (20100 bills held in all)"
    )
    // A read of what is held completely says where it stops; one with --partial reads on.
    expect(describeCoverage(coverage({ unfinished: true, bills: 20_100 }), { partial: false })).toBe(
      "spot: the store holds every bill up to 2025-05-01T00:00:00.000Z; a newer sync is under way or unfinished (20100 bills held in all); this read stops at 2025-05-01T00:00:00.000Z"
    )
    expect(describeCoverage(coverage({ unfinished: true, bills: 1 }), { partial: true })).toBe(
      "spot: the store holds every bill up to 2025-05-01T00:00:00.000Z; a newer sync is under way or unfinished (1 bill held in all)"
    )
    expect(describeCoverage(coverage({ coveredFrom: null, coveredTo: null, unfinished: true, bills: 1_684 }))).toBe(
      "spot: no sync into the store has finished (1684 bills held so far)"
    )
  })

  it("a read is whole when no sync is unfinished, or when it asks only for the window held completely (a bound not given is the covered one)", () => {
    expect(readsWhole(coverage({}), {})).toBe(true)
    // A store as of its last sync: later bills are not asked of it.
    expect(readsWhole(coverage({}), { from: may + day })).toBe(true)
    const interrupted = coverage({ coveredFrom: may - 30 * day, unfinished: true })
    // No --to: the read stops at the covered end (a sync under way does not stop it).
    expect(readsWhole(interrupted, {})).toBe(true)
    expect(readsWhole(interrupted, { from: may - 30 * day })).toBe(true)
    expect(readsWhole(interrupted, { from: may - 30 * day - 1 })).toBe(false)
    expect(readsWhole(interrupted, { from: may - 30 * day, to: may })).toBe(true)
    expect(readsWhole(interrupted, { from: may - 10 * day, to: may - day })).toBe(true)
    expect(readsWhole(interrupted, { from: may - 10 * day, to: may + 1 })).toBe(false)
    expect(readsWhole(interrupted, { from: may - 30 * day - 1, to: may })).toBe(false)
    expect(readsWhole(interrupted, { to: may })).toBe(true)
    expect(readsWhole(interrupted, { to: may + 1 })).toBe(false)
    // No sync has finished: nothing is held completely, whatever the window.
    const none = coverage({ coveredFrom: null, coveredTo: null, unfinished: true })
    expect(readsWhole(none, { from: 0, to: 1 })).toBe(false)
    expect(readsWhole(none, {})).toBe(false)
  })

  it("a read that meets a window which aged out before a sync read it is not whole, and the phrase names it", () => {
    const gap = { from: may, to: may + 100 * day }
    const aged = coverage({ coveredTo: may + 200 * day, agedOut: [gap] })
    expect(readsWhole(aged, {})).toBe(false)
    expect(readsWhole(aged, { from: may + 50 * day, to: may + 60 * day })).toBe(false)
    expect(readsWhole(aged, { from: may - 10 * day, to: may + 1 })).toBe(false)
    // Either side of it, the store holds everything.
    expect(readsWhole(aged, { from: may - 10 * day, to: may })).toBe(true)
    expect(readsWhole(aged, { from: may + 100 * day })).toBe(true)
    expect(describeCoverage(aged)).toBe(
      "spot: the store holds every bill up to 2025-11-17T00:00:00.000Z but for 2025-05-01T00:00:00.000Z to 2025-08-09T00:00:00.000Z, which aged out of the exchange's history before a sync read it (20000 bills)"
    )
  })
})
