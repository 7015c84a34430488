/**
 * The text of the progress lines.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { makeProgress, render, renderLive } from "../src/cli/Progress.js"

describe("progress lines", () => {
  it("the live text of an account: its share, the ETA by the pace so far, its counters", () => {
    expect(renderLive("spot", { bills: 2_500, pages: 25, requests: 26, share: 0.25 }, 3_000)).toBe(
      "spot 25% ETA 9 s (2500 bills, 26 req)"
    )
    expect(renderLive("funding", { bills: 0, pages: 0, requests: 0, share: 0 }, 0)).toBe(
      "funding 0% ETA ? (0 bills, 0 req)"
    )
  })

  it("the summary line of an account: no rate over a run too short to have one, so it never contradicts itself", () => {
    expect(render("funding", { bills: 2_000, pages: 20, requests: 20, elapsedMillis: 1_500 })).toBe(
      "funding: 2000 bills, 20 pages, 20 requests in 1.5 s"
    )
    expect(render("spot", { bills: 1, pages: 1, requests: 1, elapsedMillis: 100 })).toBe(
      "spot: 1 bill, 1 page, 1 request in 0.1 s"
    )
  })

  it("the summary line of a longer run: the plain average rate, which agrees with its requests and seconds", () => {
    expect(render("spot", { bills: 9_000, pages: 90, requests: 100, elapsedMillis: 10_000 })).toBe(
      "spot: 9000 bills, 90 pages, 100 requests in 10.0 s (10.0 req/s)"
    )
  })

  it("the live text of an account whose share is not known: what is known, the rate and the time reached", () => {
    expect(
      renderLive(
        "spot",
        { bills: 4_200, pages: 42, requests: 45, share: undefined, reached: Date.UTC(2026, 8, 1, 12, 0, 30) },
        5_000
      )
    ).toBe("spot 4200 bills, 42 pages, 9.0 req/s, reached 2026-09-01T12:00Z")
  })
})

describe("the live block on a terminal", () => {
  it.effect("every account on its own line, redrawn in place; a finished account's summary goes above", () =>
    Effect.gen(function* () {
      const written: Array<string> = []
      const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
        written.push(String(chunk))
        return true
      })
      yield* Effect.gen(function* () {
        const progress = yield* makeProgress(["funding", "spot"], true)
        yield* TestClock.adjust("1 second")
        yield* progress.update("funding", { bills: 100, pages: 1, requests: 1, share: 0.5 })
        yield* TestClock.adjust("1 second")
        yield* progress.update("spot", {
          bills: 50,
          pages: 1,
          requests: 2,
          share: undefined,
          reached: Date.UTC(2026, 0, 1)
        })
        yield* progress.finish("funding", { bills: 200, pages: 2, requests: 2 })
      }).pipe(Effect.ensuring(Effect.sync(() => spy.mockRestore())))
      expect(written).toEqual([
        "funding 50% ETA 1 s (100 bills, 1 req)\nspot 0% ETA ? (0 bills, 0 req)\n",
        "\x1b[2F\x1b[Jfunding 50% ETA 2 s (100 bills, 1 req)\nspot 50 bills, 1 page, 1.0 req/s, reached 2026-01-01T00:00Z\n",
        "\x1b[2F\x1b[Jfunding: 200 bills, 2 pages, 2 requests in 2.0 s\nspot 50 bills, 1 page, 1.0 req/s, reached 2026-01-01T00:00Z\n"
      ])
    })
  )
})
