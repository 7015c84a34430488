/**
 * The text of the progress lines.
 */
import { describe, expect, it } from "@effect/vitest"
import { render, renderLive } from "../src/cli/Progress.js"

describe("progress lines", () => {
  it("the live text of an account: its share, the ETA by the pace so far, its counters", () => {
    expect(renderLive("spot", { bills: 2_500, pages: 25, requests: 26, share: 0.25 }, 3_000)).toBe(
      "spot 25% ETA 9 s (2500 bills, 26 req)"
    )
    expect(renderLive("funding", { bills: 0, pages: 0, requests: 0, share: 0 }, 0)).toBe(
      "funding 0% ETA ? (0 bills, 0 req)"
    )
  })

  it("the summary line of an account", () => {
    // The rate counts one window beyond the run: 20 requests in 1.5 s are 8 a second.
    expect(render("funding", { bills: 2_000, pages: 20, requests: 20, elapsedMillis: 1_500 })).toBe(
      "funding: 2000 bills, 20 pages, 20 requests (8.0 req/s), 1.5 s"
    )
  })
})
