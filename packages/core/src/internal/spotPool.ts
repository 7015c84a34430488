/**
 * Several spot walks at once, whose output is one walk's output.
 *
 * One walk cannot go faster than a request per round trip: each request depends on the edge of
 * the page before. So the unread window is cut into segments, each walked on its own with the
 * same step ({@link spotStep}), and the segments are emitted one after the other in the server's
 * order (newest first: the segment with the latest times first). Segments partition the window,
 * and each walk lists its segment exactly once, so the whole is listed exactly once.
 *
 * Where to cut: bills are spread very unevenly in time, so equal slices would leave most walks
 * with nothing. A walk whose page came back full has just measured the density at its edge; when
 * capacity would otherwise sit idle (fewer than `concurrency` segments hold or fetch pages, and
 * none waits to start), it keeps about `piecePages` pages' worth of time beyond its edge and
 * hands the rest on as a segment that waits to start. A segment that starts is carved the same
 * way, by the density its neighbour measured at their common boundary. A walk that meets denser
 * bills than measured cuts again; a sparser one ends early. Each cut costs about one request:
 * the last page of a segment is rarely full.
 *
 * When not to cut: a walk exists to keep requests in flight while others wait for answers. Once
 * requests queue somewhere shared (the rate limiter: fetches take much longer than the fastest one
 * seen), another walk only adds the request its last page costs, so no cut is made while the last
 * fetches took, on average, more than three times the fastest. Close to the exchange one walk
 * keeps the limiter busy on its own; far from it, fetches take about a round trip until enough
 * walks run. Each completed fetch that did not wait allows one cut, so the walks grow one at a
 * time.
 *
 * Memory: at most `concurrency` segments hold pages, each at most `bufferPages` pages, so the
 * reorder buffer holds at most `concurrency × bufferPages × limit` bills.
 *
 * The order and resumption contract carry over: pages come out in order, so when a page of a
 * segment is emitted, everything after it in the output is still unread, and that is one time
 * range (the rest of this segment and all later ones) plus the ids emitted at its edge
 * millisecond: the cursor of a single walk.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { SpotBill } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import { type SpotRequest, type SpotWalkState, spotRequest, spotStep } from "./spotWalk.js"

/**
 * How the pool runs.
 */
export interface SpotPoolOptions {
  /** Segments that may hold or fetch pages at once: the most requests in flight. */
  readonly concurrency: number
  /** Records per request. */
  readonly limit: number
  /** Pages of time a segment keeps for itself when it cuts. */
  readonly piecePages: number
  /** Pages a segment may read ahead of the consumer. */
  readonly bufferPages: number
}

/**
 * Pages a segment keeps, and may read ahead: enough that a segment rarely waits for the one
 * before it, few enough that a cut (about one extra request) is paid once per eight pages.
 */
export const defaultPiecePages = 8

/** Room for a segment's pages plus those a denser stretch than measured adds. */
export const defaultBufferPages = 10

/** Fetches whose durations tell whether requests queue: a window's worth at the exchanges' limit. */
const recentFetches = 10

/**
 * How much longer than the fastest fetch a fetch may take and still count as not having waited:
 * three round trips (room for the walks a far exchange needs while the limiter's first answers
 * still hold slots for a window plus a round trip), and a few milliseconds of scheduling noise.
 */
const waitedMillis = (fastest: number): number => 3 * fastest + 20

/**
 * One page of the pooled walk, with the state of a single walk over everything after it.
 */
export interface PooledPage {
  readonly bills: ReadonlyArray<SpotBill>
  readonly received: number
  /** Requests completed by the whole pool when this page was emitted. */
  readonly requests: number
  /** The rest of the window after this page, as one walk; `undefined` when nothing is left. */
  readonly rest: SpotWalkState | undefined
}

type Item =
  | { readonly _tag: "Page"; readonly page: Omit<PooledPage, "requests">; readonly last: boolean }
  | { readonly _tag: "Failed"; readonly error: BillsError }

interface Segment {
  state: SpotWalkState
  status: "pending" | "walking" | "done"
  /** Bills per millisecond at the segment's unread edge, as last measured. */
  density: number | undefined
  next: Segment | undefined
  readonly queue: Queue.Queue<Item>
}

/**
 * Bills per millisecond that a full page showed between the window's edge before it and after.
 * `undefined` while the order is unknown or the page did not narrow the window.
 */
export const densityOf = (before: SpotWalkState, after: SpotWalkState, received: number): number | undefined => {
  const span =
    after.order === "newest-first"
      ? before.hi - after.hi + 1
      : after.order === "oldest-first"
        ? after.lo - before.lo + 1
        : 0
  return span > 0 && received > 0 ? received / span : undefined
}

/**
 * The state of a walk of `[lo, hi]` that knows what `known` knows about the exchange.
 */
const fresh = (known: SpotWalkState, lo: number, hi: number): SpotWalkState => ({
  lo,
  hi,
  inclusiveAfter: known.inclusiveAfter,
  inclusiveBefore: known.inclusiveBefore,
  order: known.order,
  edgeMillisecond: undefined,
  edgeBillIds: []
})

/**
 * Splits `state` after about `pages` pages at `density`: the part read first, and the rest
 * (`undefined` when the window is not much larger than that).
 */
const cut = (
  state: SpotWalkState,
  density: number,
  pages: number,
  limit: number
): { readonly keep: SpotWalkState; readonly rest: SpotWalkState } | undefined => {
  const span = Math.max(1, Math.ceil((pages * limit) / density))
  // Not `span >> 1`: a sparse history gives spans beyond 2^31 ms (25 days), where the 32-bit shift
  // turns negative and would let a cut reach past the window's start.
  if (state.hi - state.lo + 1 <= span + Math.floor(span / 2)) return undefined
  if (state.order === "newest-first") {
    const s = state.hi - span + 1
    return { keep: { ...state, lo: s }, rest: fresh(state, state.lo, s - 1) }
  }
  if (state.order === "oldest-first") {
    const s = state.lo + span - 1
    return { keep: { ...state, hi: s }, rest: fresh(state, s + 1, state.hi) }
  }
  return undefined
}

/**
 * The pooled walk from `start` (a walk's state after at least one page), lazily: nothing is
 * fetched until the stream is pulled. `density` is what the page before `start` measured.
 */
export const spotPool = (
  start: SpotWalkState,
  density: number | undefined,
  options: SpotPoolOptions,
  fetch: (request: SpotRequest) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>
): Stream.Stream<PooledPage, BillsError> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const { concurrency, limit, piecePages, bufferPages } = options
      // The whole window: segments later in the output lie towards this end.
      const globalLo = start.lo
      const globalHi = start.hi
      let requests = 0

      const newSegment = (state: SpotWalkState, segmentDensity: number | undefined) =>
        Effect.map(
          Queue.bounded<Item>(bufferPages),
          (queue): Segment => ({ state, status: "pending", density: segmentDensity, next: undefined, queue })
        )

      /** The rest of the whole window after a page that left `state` to its segment's walk. */
      const restAfterPage = (state: SpotWalkState): SpotWalkState =>
        state.order === "newest-first"
          ? { ...state, lo: globalLo }
          : state.order === "oldest-first"
            ? { ...state, hi: globalHi }
            : state
      /** The rest of the whole window after the segment `finished` was read to its end. */
      const restAfterSegment = (finished: SpotWalkState): SpotWalkState | undefined =>
        finished.order === "oldest-first"
          ? finished.hi < globalHi
            ? fresh(finished, finished.hi + 1, globalHi)
            : undefined
          : finished.lo > globalLo
            ? fresh(finished, globalLo, finished.lo - 1)
            : undefined

      let head: Segment | undefined = yield* newSegment(start, density)

      // How long the last fetches took, and the fastest seen: a fetch much slower than the
      // fastest waited for something shared, which another walk cannot speed up.
      let fastest = Number.POSITIVE_INFINITY
      const recent: Array<number> = []
      // Cuts allowed: one at the start (the first page did not wait), one per fetch that did not.
      let widenings = 1
      const recordFetch = (millis: number) => {
        fastest = Math.min(fastest, millis)
        recent.push(millis)
        if (recent.length > recentFetches) recent.shift()
        // The mean, not the largest: a sliding window hands its permits out in clusters, so even
        // a pool below the limit has the odd fetch that waits. By Little's law the mean is the
        // walks in flight over the rate they reach: three times the fastest, three times the walks needed.
        const mean = recent.reduce((sum, m) => sum + m, 0) / recent.length
        if (mean <= waitedMillis(fastest)) widenings = Math.min(widenings + 1, concurrency)
        else widenings = 0
      }

      const holding = (): number => {
        let n = 0
        for (let s = head; s !== undefined; s = s.next) if (s.status !== "pending") n++
        return n
      }
      const anyPending = (): boolean => {
        for (let s = head; s !== undefined; s = s.next) if (s.status === "pending") return true
        return false
      }

      /** Hands the rest of `segment` beyond `piecePages` pages on to a pending segment. */
      const cutOff = (segment: Segment) =>
        Effect.gen(function* () {
          if (segment.density === undefined || widenings === 0) return
          const parts = cut(segment.state, segment.density, piecePages, limit)
          if (parts === undefined) return
          widenings--
          const rest = yield* newSegment(parts.rest, segment.density)
          segment.state = parts.keep
          rest.next = segment.next
          segment.next = rest
        })

      const scope = yield* Effect.scope

      /** Starts pending segments, first in output order, while fewer than `concurrency` hold pages. */
      const schedule: Effect.Effect<void> = Effect.suspend(() => {
        if (holding() >= concurrency) return Effect.void
        let pending = head
        while (pending !== undefined && pending.status !== "pending") pending = pending.next
        if (pending === undefined) return Effect.void
        const segment = pending
        return Effect.gen(function* () {
          // Claimed before the cut, which yields: another fiber scheduling meanwhile must not
          // start the same segment a second time.
          segment.status = "walking"
          yield* cutOff(segment)
          yield* Effect.forkIn(walkSegment(segment), scope)
          yield* schedule
        })
      })

      const walkSegment = (segment: Segment): Effect.Effect<void> =>
        Effect.gen(function* () {
          for (let first = true; ; first = false) {
            const before = segment.state
            const request = spotRequest(before)
            const sent = yield* Clock.currentTimeMillis
            const fetched = yield* Effect.either(fetch(request))
            recordFetch((yield* Clock.currentTimeMillis) - sent)
            const step = Either.flatMap(fetched, (received) =>
              Either.map(spotStep(before, request, received, limit), (s) => ({ ...s, received: received.length }))
            )
            if (Either.isLeft(step)) {
              segment.status = "done"
              yield* Queue.offer(segment.queue, { _tag: "Failed", error: step.left })
              return
            }
            requests++
            const { bills, next, received } = step.right
            if (next !== undefined) {
              segment.state = next
              const measured = received === limit ? densityOf(before, next, received) : undefined
              if (measured !== undefined) segment.density = measured
              // Capacity would sit idle: hand the far part of this window on.
              if (holding() < concurrency && !anyPending()) {
                yield* cutOff(segment)
                yield* schedule
              }
            } else {
              segment.status = "done"
              // Sparser than measured (a gap in the history): the segments waiting beyond this one
              // start whole and measure for themselves, rather than being carved into pieces that
              // hold nothing (one request each, all the way back to the epoch).
              if (first) {
                for (let s = segment.next; s !== undefined; s = s.next)
                  if (s.status === "pending") s.density = undefined
              }
            }
            const rest = next === undefined ? restAfterSegment(segment.state) : restAfterPage(segment.state)
            yield* Queue.offer(segment.queue, {
              _tag: "Page",
              page: { bills, received, rest },
              last: next === undefined
            })
            if (next === undefined) return
          }
        })

      const pull: Effect.Effect<PooledPage, Option.Option<BillsError>> = Effect.suspend(() => {
        const current = head
        if (current === undefined) return Effect.fail(Option.none())
        return Effect.flatMap(Queue.take(current.queue), (item) => {
          if (item._tag === "Failed") return Effect.fail(Option.some(item.error))
          if (item.last) {
            head = current.next
            return Effect.as(schedule, { ...item.page, requests })
          }
          return Effect.succeed({ ...item.page, requests })
        })
      })

      yield* schedule
      return Stream.repeatEffectOption(pull)
    })
  )
