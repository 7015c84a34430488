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
 * more walks are wanted, it keeps about `piecePages` pages' worth of time beyond its edge and
 * hands the rest on as a segment that waits to start. A segment that starts is carved the same
 * way, by the density its neighbour measured at their common boundary. A walk that meets denser
 * bills than measured cuts again; a sparser one ends early. Each cut costs about one request:
 * the last page of a segment is rarely full. Near the end of the window no segment is left long
 * enough to keep `piecePages`, and the short ones are halved instead.
 *
 * How many walks: a walk exists to keep a request in flight while others wait for answers. By
 * Little's law the requests in flight are the rate times the time per request, so the pool
 * wants twice the rate it reached over the last second times the fastest fetch seen (about a
 * round trip: a fetch that did not wait at the limiter). Below the limit, every walk added
 * raises the rate, and the walks double about once a round trip; at the limit the rate stops
 * growing, and so do the walks. Close to the exchange the product is well below one, and one walk
 * keeps the limiter busy alone; far from it, a walk that is about to end (its unread part holds
 * about a page) is replaced before it ends, since the rate it helped reach stays.
 *
 * Memory: at most `concurrency` walks fetch at once, and besides the head (whose pages go out as
 * the consumer pulls them) at most `concurrency` segments hold bills or fetch pages, each at most
 * `bufferPages` pages in its queue and one more its walk waits to hand over: the reorder buffer
 * holds at most `(concurrency + 1) × (bufferPages + 1) × limit` bills. A segment read to its end
 * whose pages hold no bills (cut into the years before the history) takes no room.
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
 * Pages of time a segment keeps when it cuts: as many as its buffer holds, so that a segment
 * walked beside the ones before it can read its whole piece without waiting for them. Each cut
 * costs about one request; on 10,000 bills 150 ms away, pieces of 10 pages made 112 requests and
 * took 11.5 s, pieces of 16 made 109 and took 10.9 s, and pieces of 20 no fewer at 300 ms.
 */
export const defaultPiecePages = 16

/** Pages a segment's queue holds ahead of the consumer: its whole piece. */
export const defaultBufferPages = 16

/** The span over which the pool measures the rate it reaches: the exchanges' window. */
const rateHorizonMillis = 1000

/**
 * Walks kept per walk Little's law asks for: room for the limiter handing its permits out in
 * clusters (a window's pattern repeats in the next), so that a cluster finds walks ready.
 */
const headroom = 2

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
  /** Bills in pages fetched and not yet emitted. */
  held: number
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
          (queue): Segment => ({
            state,
            status: "pending",
            density: segmentDensity,
            held: 0,
            next: undefined,
            queue
          })
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

      // Walks wanted, by Little's law (see "How many walks" above): `headroom` × the rate reached
      // over the last second × the fastest fetch seen.
      const started = yield* Clock.currentTimeMillis
      let fastest = Number.POSITIVE_INFINITY
      const completions: Array<number> = []
      const wanted = (now: number): number => {
        while (completions.length > 0 && (completions[0] as number) <= now - rateHorizonMillis) completions.shift()
        // Before the pool's first answer: three walks. The first page came back without waiting,
        // so the limiter has room; Little's law would ask for two, and a third fills the window sooner.
        if (fastest === Number.POSITIVE_INFINITY) return Math.min(concurrency, 3)
        const rate = completions.length / Math.max(1, Math.min(rateHorizonMillis, now - started))
        return Math.min(concurrency, Math.max(1, Math.ceil(headroom * rate * Math.max(1, fastest))))
      }
      const recordFetch = (now: number, millis: number) => {
        fastest = Math.min(fastest, millis)
        completions.push(now)
      }

      // Walks that will still be walking after their next page: one whose unread part holds about
      // a page at its density ends with that page, and is replaced now rather than after it ended,
      // so that walks cut at the same time, which end at the same time, do not leave the pool
      // short for the round trips it takes to cut new ones.
      const walking = (): number => {
        let n = 0
        for (let s = head; s !== undefined; s = s.next) {
          if (s.status === "walking" && (s.density === undefined || (s.state.hi - s.state.lo + 1) * s.density > limit))
            n++
        }
        return n
      }

      // Segments after the head that hold bills or may fetch more: what waits for the head to be
      // emitted. The head's own pages go out as the consumer pulls them; and a segment read to its
      // end whose pages hold no bills (cut into the years before the history) takes no room.
      const holding = (): number => {
        let n = 0
        for (let s = head?.next; s !== undefined; s = s.next) if (s.status === "walking" || s.held > 0) n++
        return n
      }
      /** Whether another walk may start: at most `concurrency` requests in flight, and the buffer's bound. */
      const room = (): boolean => {
        let walks = 0
        for (let s = head; s !== undefined; s = s.next) if (s.status === "walking") walks++
        return walks < concurrency && holding() < concurrency
      }
      const anyPending = (): boolean => {
        for (let s = head; s !== undefined; s = s.next) if (s.status === "pending") return true
        return false
      }

      /**
       * Whether a segment besides `except`, not yet read to its end, is known to be long enough to
       * cut `piecePages` off. One whose density is unknown (after a gap in the history) is not: it
       * cuts itself once it has measured.
       */
      const anyLong = (except: Segment): boolean => {
        for (let s = head; s !== undefined; s = s.next) {
          if (s === except || s.status === "done" || s.density === undefined) continue
          if (cut(s.state, s.density, piecePages, limit) !== undefined) return true
        }
        return false
      }

      /** Hands the rest of `segment` beyond `piecePages` pages on to a pending segment. */
      const cutOff = (segment: Segment) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (segment.density === undefined || walking() >= wanted(now)) return
          // Once no segment is long enough to keep `piecePages` (the end of the window is near), a
          // short one is halved instead: its pages would otherwise be walked one round trip at a time.
          // Not in the pool's first window: the limiter's opening burst lets the rate look higher
          // than it can stay, and a short window read next to the exchange would pay for pieces it
          // does not need.
          const pagesLeft = ((segment.state.hi - segment.state.lo + 1) * segment.density) / limit
          const parts =
            cut(segment.state, segment.density, piecePages, limit) ??
            (pagesLeft >= 2 && now - started >= rateHorizonMillis && !anyLong(segment)
              ? cut(segment.state, segment.density, Math.floor(pagesLeft / 2), limit)
              : undefined)
          if (parts === undefined) return
          const rest = yield* newSegment(parts.rest, segment.density)
          segment.state = parts.keep
          rest.next = segment.next
          segment.next = rest
        })

      const scope = yield* Effect.scope

      /** Starts pending segments, first in output order, while there is {@link room} for them. */
      const schedule: Effect.Effect<void> = Effect.suspend(() => {
        if (!room()) return Effect.void
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
            const now = yield* Clock.currentTimeMillis
            recordFetch(now, now - sent)
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
              // More walks may be wanted: hand the far part of this window on.
              if (room() && !anyPending()) {
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
            segment.held += bills.length
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
          current.held -= item.page.bills.length
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
