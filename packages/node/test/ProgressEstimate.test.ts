/**
 * The progress arithmetic: shares of funding and spot walks, the ETA and how they read.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  duration,
  etaMillis,
  fundingShare,
  percent,
  servedHistoryMillis,
  spotShare
} from "../src/cli/ProgressEstimate.js"

describe("fundingShare", () => {
  it("is the pages read over the pages the total makes", () => {
    expect(fundingShare({ pageIndex: 1, total: 1_000, pageSize: 100, done: false })).toBe(0.1)
    expect(fundingShare({ pageIndex: 3, total: 250, pageSize: 100, done: false })).toBe(0.99)
    expect(fundingShare({ pageIndex: 2, total: 250, pageSize: 100, done: false })).toBeCloseTo(2 / 3, 12)
  })

  it("is 1 when the walk is done, and only then", () => {
    expect(fundingShare({ pageIndex: 3, total: 250, pageSize: 100, done: true })).toBe(1)
    // More bills than the total said: still not 100 % before the end.
    expect(fundingShare({ pageIndex: 5, total: 250, pageSize: 100, done: false })).toBe(0.99)
    expect(fundingShare({ pageIndex: 1, total: 0, pageSize: 100, done: true })).toBe(1)
  })
})

describe("spotShare", () => {
  const window = { from: 1_000, end: 11_000 }

  it("is the part of [from, end) no longer left to read, whichever end the walk started from", () => {
    // Nothing read yet: all of [1000, 10999] is left.
    expect(spotShare({ ...window, lo: 1_000, hi: 10_999, done: false })).toBe(0)
    // Newest first: the top quarter read.
    expect(spotShare({ ...window, lo: 1_000, hi: 8_499, done: false })).toBe(0.25)
    // Oldest first: the bottom 60 % read.
    expect(spotShare({ ...window, lo: 7_000, hi: 10_999, done: false })).toBe(0.6)
    expect(spotShare({ ...window, lo: 1_000, hi: 1_099, done: false })).toBe(0.99)
    expect(spotShare({ ...window, lo: 1_000, hi: 1_000, done: true })).toBe(1)
  })

  it("without from, measures the three months the exchange serves before the end", () => {
    const end = 100 * servedHistoryMillis
    expect(spotShare({ end, lo: 0, hi: end - 1, done: false })).toBe(0)
    expect(spotShare({ end, lo: 0, hi: end - 1 - servedHistoryMillis / 2, done: false })).toBe(0.5)
  })

  it("without from, a walk that goes on below the three months assumed has no known share (not 99 % for as long as that takes)", () => {
    const end = 100 * servedHistoryMillis
    expect(spotShare({ end, lo: 0, hi: end - 2 * servedHistoryMillis, done: false })).toBeUndefined()
    expect(spotShare({ end, lo: 0, hi: end - 2 * servedHistoryMillis, done: true })).toBe(1)
  })

  it("measures from where the exchange said its history starts, once a page carries it", () => {
    const end = 100 * servedHistoryMillis
    const servedFrom = end - 2 * servedHistoryMillis
    expect(spotShare({ end, lo: 0, hi: end - 1 - servedHistoryMillis, done: false }, servedFrom)).toBe(0.5)
    // A from before the served history: the share is of what can be read.
    expect(spotShare({ from: 0, end, lo: 0, hi: end - 1 - servedHistoryMillis, done: false }, servedFrom)).toBe(0.5)
  })

  it("an empty window is done", () => {
    expect(spotShare({ from: 5, end: 5, lo: 5, hi: 4, done: true })).toBe(1)
  })
})

describe("etaMillis", () => {
  it("is the time per share so far times the share left", () => {
    expect(etaMillis(0.25, 3_000)).toBe(9_000)
    expect(etaMillis(0.5, 4_000)).toBe(4_000)
    expect(etaMillis(0.99, 9_900)).toBe(100)
    expect(etaMillis(1, 5_000)).toBe(0)
  })

  it("is unknown before there is a pace", () => {
    expect(etaMillis(0, 5_000)).toBeUndefined()
    expect(etaMillis(0.3, 0)).toBeUndefined()
  })
})

describe("how they read", () => {
  it("percent rounds down, so 100% means done", () => {
    expect(percent(0.999)).toBe("99%")
    expect(percent(0.25)).toBe("25%")
    expect(percent(1)).toBe("100%")
  })

  it("duration in seconds, minutes or hours", () => {
    expect(duration(undefined)).toBe("?")
    expect(duration(0)).toBe("0 s")
    expect(duration(44_100)).toBe("45 s")
    expect(duration(725_000)).toBe("12 min 5 s")
    expect(duration(7_380_000)).toBe("2 h 3 min")
  })
})
