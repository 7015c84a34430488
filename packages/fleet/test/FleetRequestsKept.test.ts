/**
 * Every request a pass makes is a page it keeps (issue 29 §2): an account's first sync through
 * the fleet's passes, with a runner's defaults, costs at most 1.05 requests per 100 bills
 * stored, funding and spot, on v2 and v3, at 0 and 150 ms round trips; the pass after 400 late
 * bills (inside the overlap) and 600 fresh ones costs at most 12 requests per kind. The requests
 * are those the exchange saw, not the client's tally.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { measureKept, perHundred } from "./support/keptRequests.js"
import { postgresUrl } from "./support/services.js"

const funding = 3_000
const spot = 8_000

// Each version and each distance once; `pnpm bench --only kept` measures all four pairs.
const cases = [
  { apiVersion: "v2", roundTripMillis: 150 },
  { apiVersion: "v3", roundTripMillis: 0 }
] as const

describe.skipIf(postgresUrl === undefined)("a first sync through the fleet keeps every request", () => {
  for (const { apiVersion, roundTripMillis } of cases) {
    it.live(
      `${apiVersion} at ${roundTripMillis} ms: at most 1.05 requests per 100 bills stored, and at most 12 per kind for 1,000 new bills`,
      () =>
        Effect.gen(function* () {
          const { first, stored, steady } = yield* measureKept({
            postgresUrl: postgresUrl ?? "",
            apiVersion,
            roundTripMillis,
            funding,
            spot
          })
          expect(stored).toEqual({ funding, spot })
          // More than one pass: the bound of 20 pages per pass was met and resumed from.
          expect(first.passes).toBeGreaterThan(1)
          expect(first.refused).toBe(0)
          expect(perHundred(first.funding, stored.funding)).toBeLessThanOrEqual(1.05)
          expect(perHundred(first.spot, stored.spot)).toBeLessThanOrEqual(1.05)

          expect(steady.added).toEqual({ funding: 1_000, spot: 1_000 })
          expect(steady.passes).toBe(1)
          expect(steady.refused).toBe(0)
          expect(steady.funding).toBeLessThanOrEqual(12)
          expect(steady.spot).toBeLessThanOrEqual(12)
        }).pipe(Effect.scoped),
      120_000
    )
  }
})
