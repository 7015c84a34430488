/**
 * Resuming a spot walk from the cursor of a page emitted by the pool of walks (concurrency on),
 * where the page lies inside a segment cut off from the window: the cursor must stand for the
 * rest of that segment and every segment after it, as one walk.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi, SpotCursor } from "../../src/index.js"
import { Prng } from "../../src/testing/index.js"
import { selected, spotBills } from "../support/billScenarios.js"
import { fakeStack, runOnTestClock } from "../support/fakeStack.js"
import { expectExactly } from "../support/streamCheck.js"

const orders = ["newest-first", "oldest-first"] as const
const boundsKinds = ["inclusive", "exclusive"] as const

// Dense and even: every page but a segment's last comes back full, so the pool measures the
// density at once. 150 ms from the exchange it wants several walks, and cuts the 40-page window
// into pieces of 16 pages and, towards its end, halves of what is left.
const dense = spotBills({ seed: 31, count: 4000, maxGroup: 4, maxGap: 2 })
const query = { from: Number(dense[10]?.cTime), concurrency: 8 } as const
const expected = selected(dense, query)

/** All pages of a walk 150 ms from the exchange, the TestClock moved along meanwhile. */
const collect = <A, E, R>(stream: Stream.Stream<A, E, R>) =>
  Effect.flatMap(runOnTestClock(Stream.runCollect(stream), 75), (exit) =>
    Exit.isSuccess(exit) ? Effect.succeed(exit.value) : Effect.dieMessage(String(exit.cause))
  )

/**
 * Segments the walk went through: each ends with a page that is not full (a walk stops on such a
 * page), and only the last page of a single walk is.
 */
const segmentsOf = (pages: ReadonlyArray<{ readonly received: number }>): number =>
  pages.filter((page) => page.received < 100).length

describe("resuming a walk cut into segments, with concurrency on", () => {
  for (const order of orders) {
    for (const bounds of boundsKinds) {
      it.effect(
        `continues exactly after every page (${order}, ${bounds})`,
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(Number(dense[dense.length - 1]?.cTime) + 1)
            const api = yield* BillsApi
            const pages = Chunk.toReadonlyArray(yield* collect(api.streamSpotPages(query)))
            expectExactly(
              pages.flatMap((page) => page.bills),
              expected
            )
            // The walk was really cut: several segments, so most cursors stand inside one of them.
            expect(segmentsOf(pages)).toBeGreaterThanOrEqual(4)
            // Every page, or a seeded sample when FC_SEED asks for another run.
            const seed = Number(process.env.FC_SEED ?? 0)
            const prng = Prng.make(seed)
            const indices = seed === 0 ? pages.map((_, k) => k) : pages.map((_, k) => k).filter(() => prng.next() < 0.5)
            for (const k of indices) {
              const page = pages[k] as (typeof pages)[number]
              const stored = JSON.stringify(Schema.encodeSync(SpotCursor)(page.cursor))
              const cursor = Schema.decodeUnknownSync(SpotCursor)(JSON.parse(stored))
              const before = pages.slice(0, k + 1).flatMap((p) => p.bills)
              const rest = Chunk.toReadonlyArray(
                yield* collect(api.streamSpotPages({ cursor, concurrency: query.concurrency }))
              )
              expectExactly([...before, ...rest.flatMap((p) => p.bills)], expected)
              // The resumed walk counts on from the cursor.
              for (const p of rest) expect(p.requests).toBeGreaterThan(page.requests)
            }
          }).pipe(
            Effect.provide(
              fakeStack({
                exchange: { bills: { spot: dense }, order, bounds, rateLimit: false, latency: { millis: 150 } },
                rateLimit: false
              })
            )
          ),
        // A resumed walk from every page: about 40 s of CPU under TestClock on a quiet 2-core
        // machine, over a minute on a busy one; the time checks nothing, the bills do.
        180_000
      )
    }
  }
})
