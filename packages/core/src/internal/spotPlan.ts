/**
 * The spot pool's plan: which segments the unread window is cut into, which of them walk, and
 * how many walks are wanted. Synchronous and free of effects: the runner (`spotPool.ts`) calls
 * it inside `Effect.sync`, so each call is atomic however the walks interleave.
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
 * What a cut costs decides when to pay it. A window too short for a piece (an incremental sync's
 * few pages) is read by one walk, never halved: there a cut's request is a tenth of the window's
 * and saves a round trip or two, and where many accounts share a budget every request counts
 * against all of them. Halving is for the tail of a window the pool has already cut into pieces,
 * where a few requests keep the last windows of a long export at the limit.
 *
 * How many walks: a walk exists to keep a request in flight while others wait for answers. By
 * Little's law the requests in flight are the rate times the time per request, so the pool
 * wants twice the rate it reached over the last second times the fastest fetch seen (about a
 * round trip: a fetch that did not wait at the limiter). Below the limit, every walk added
 * raises the rate, and the walks double about once a round trip; at the limit the rate stops
 * growing, and so do the walks. Far from the exchange (a first round trip of `openAllAtMillis`
 * or more) the pool opens with every walk at once, so the first window's permits are used a
 * round trip after the first page, not two. Close to the exchange the product is well below one,
 * and one walk keeps the limiter busy alone; far from it, a walk that is about to end (its unread part holds
 * about a page) is replaced before it ends, since the rate it helped reach stays.
 *
 * Memory: at most `concurrency` segments walk at once, and besides the head (whose pages go out
 * as the consumer pulls them) at most `concurrency` segments hold bills or fetch pages. A segment
 * read to its end whose pages hold no bills (cut into the years before the history) takes no room.
 * A segment behind the head whose queue is full ends there and hands its unread part on whole:
 * its walk would otherwise wait, counted as walking, until the head is emitted, and then read
 * its last pages one round trip apart at the end of the export, with nothing else left to do.
 */
import type { SpotWalkState } from "./spotWalk.js"

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
  /** The widest window one request may ask for (the operation's width rule), if it has one. */
  readonly maxWidth?: number | undefined
  /** How long the page before the pool took to come back, if known: the first round trip. */
  readonly firstRoundTripMillis?: number | undefined
}

/**
 * A first round trip at least this long makes the pool open with every walk it may, rather than
 * three: the nine permits the first page leaves in its window are then used one round trip after
 * it rather than two (three walks, then six more a round trip later), a pattern every later
 * window of a strict limiter repeats. Measured, not derived: from 100 ms on, the far rows' model
 * gains as much at 150 ms, but there Little's law wants three walks once the limit is reached, and
 * the six more, whose pieces were cut together and end together, left slots 300 ms late in a dense
 * history (`StreamsSpotPoolCuts`); at 200 ms it wants four to six.
 */
export const openAllAtMillis = 200

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
export const rateHorizonMillis = 1000

/**
 * Walks kept per walk Little's law asks for: room for the limiter handing its permits out in
 * clusters (a window's pattern repeats in the next), so that a cluster finds walks ready.
 */
const headroom = 2

/**
 * A part of the window, walked on its own. Segments form a list in output order; the plan
 * alone changes them.
 */
export interface Segment {
  readonly state: SpotWalkState
  readonly status: "pending" | "walking" | "done"
  /** Bills per millisecond at the segment's unread edge, as last measured. */
  readonly density: number | undefined
  /** Bills in pages fetched and not yet emitted. */
  readonly held: number
  /** Pages fetched and not yet emitted. */
  readonly queued: number
  readonly next: Segment | undefined
}

interface MutableSegment {
  state: SpotWalkState
  status: "pending" | "walking" | "done"
  density: number | undefined
  held: number
  queued: number
  next: MutableSegment | undefined
}

/**
 * When a fetch was sent and when its answer came: the rate samples.
 */
export interface Timing {
  readonly sent: number
  readonly now: number
}

/**
 * The plan of one pooled walk.
 */
export interface SpotPlan {
  /** The segment whose pages go out next; `undefined` once every segment is emitted. */
  readonly head: () => Segment | undefined
  /** Requests completed so far. */
  readonly requests: () => number
  /** Whether another walk may start: fewer than `concurrency` walking, and the buffer's bound. */
  readonly room: () => boolean
  /**
   * Claims the first pending segment in output order, if there is room, and cuts its far part
   * off when more walks are wanted. Returns the segment to walk and the segment cut off.
   */
  readonly claimNext: (now: number) => { readonly claimed: Segment; readonly created: Segment | undefined } | undefined
  /**
   * Hands the rest of `segment` beyond `piecePages` pages on to a pending segment, when more
   * walks are wanted; returns it.
   */
  readonly cutOff: (segment: Segment, now: number) => Segment | undefined
  /**
   * A page of `segment` that left `next` to read: its state moves on, a full page measures the
   * density, and the far part is cut off when more walks are wanted and none waits; or, when the
   * page fills the queue of a segment behind the head (`bufferPages`), the segment ends with it
   * and its unread part is handed on whole. Returns the rest of the whole window after the page,
   * the segment cut off or handed on, whether to claim more, and whether the page is the last.
   */
  readonly afterPage: (
    segment: Segment,
    page: {
      readonly before: SpotWalkState
      readonly next: SpotWalkState
      readonly bills: number
      readonly received: number
      /** Requests the page took (default 1; more where a cursor read a crowded millisecond on). */
      readonly requests?: number | undefined
    },
    timing: Timing
  ) => {
    readonly rest: SpotWalkState
    readonly created: Segment | undefined
    readonly schedule: boolean
    /** The segment's last page: its unread part was handed on as `created` (see `afterPage`). */
    readonly last: boolean
  }
  /**
   * The last page of `segment`: it is done. Returns the rest of the whole window after it
   * (`undefined` when nothing is left). `timing` is `undefined` when no request was made.
   */
  readonly afterEnd: (
    segment: Segment,
    page: { readonly first: boolean; readonly bills: number; readonly requests?: number | undefined },
    timing: Timing | undefined
  ) => SpotWalkState | undefined
  /** A fetch or step of `segment` failed: it walks no more. */
  readonly afterFailure: (segment: Segment, timing: Timing) => void
  /** The consumer took a page of the head, its last when `last`: the next segment becomes the head. */
  readonly emitted: (segment: Segment, bills: number, last: boolean) => void
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
 * A first round trip from this long (and below {@link openAllAtMillis}) lets the opening measure
 * the density by the first page's own bills when the page found a quiet stretch before them
 * ({@link openingDensity}). Nearer, one walk keeps the limiter busy and finer pieces would only
 * cost requests, where many accounts share a budget.
 */
export const quietOpeningAtMillis = 100

/**
 * How much of a first page's span may be quiet before its bills' own span measures the density:
 * a span at least this many times its bills' (a history that ends a while before the clock).
 */
export const quietSpans = 4

/**
 * The density the pool opens with: what the first page measured between the window's edge and its
 * last bill ({@link densityOf}), or, when most of that span was quiet (the time between the window's
 * edge and `nearest`, the page's first bill, at least `quietSpans` times the bills' own span) and
 * the first round trip lies in `[quietOpeningAtMillis, openAllAtMillis)`, the density of the bills
 * themselves. A history that ends a day before the clock otherwise opens with pieces cut at the
 * quiet day's density (3,000 bills in one day: 31 times too sparse), all its bills in the first
 * piece and the other walks' pieces empty. Not when every walk opens at once (`openAllAtMillis`):
 * there nine pieces are cut blind, and in a history of bursts weeks apart the pieces cut at a
 * burst's density fall in the gap after it, one empty request each (6,000 bills in four bursts:
 * 96 requests for 82).
 */
export const openingDensity = (
  before: SpotWalkState,
  after: SpotWalkState,
  received: number,
  nearest: number | undefined,
  firstRoundTripMillis: number | undefined
): number | undefined => {
  const spanned = densityOf(before, after, received)
  if (
    spanned === undefined ||
    nearest === undefined ||
    firstRoundTripMillis === undefined ||
    firstRoundTripMillis < quietOpeningAtMillis ||
    firstRoundTripMillis >= openAllAtMillis
  ) {
    return spanned
  }
  const own =
    after.order === "newest-first"
      ? densityOf({ ...before, hi: nearest }, after, received)
      : densityOf({ ...before, lo: nearest }, after, received)
  return own !== undefined && own >= quietSpans * spanned ? own : spanned
}

/**
 * Bills per millisecond of a page short of the limit that left part of the window to read (a
 * width rule sliced the request): the slice it read whole held `received` bills, maybe none.
 * `undefined` while the order is unknown.
 */
export const readDensity = (before: SpotWalkState, after: SpotWalkState, received: number): number | undefined => {
  const span =
    after.order === "newest-first" ? before.hi - after.hi : after.order === "oldest-first" ? after.lo - before.lo : 0
  return span > 0 ? received / span : undefined
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

/** A split of a segment: the part read first, and the rest, handed on. */
type Split = { readonly keep: SpotWalkState; readonly rest: SpotWalkState }

/** `state` split after its first `span` ms in the server's order; `undefined` while that is unknown. */
const splitAfter = (state: SpotWalkState, span: number): Split | undefined => {
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
 * Splits `state` after about `pages` pages at `density`: the part read first, and the rest
 * (`undefined` when the window is not much larger than that). Under a width rule (`maxWidth`), a
 * part wider than one request is cut at a whole number of requests' widths, so that the requests
 * that slice it leave no short remainder: pieces cut by a density that the bills do not keep (the
 * years before a history's first bill) cost a request per width, as the width cuts do.
 */
export const cut = (
  state: SpotWalkState,
  density: number,
  pages: number,
  limit: number,
  maxWidth?: number | undefined
): Split | undefined => {
  const byDensity = Math.max(1, Math.ceil((pages * limit) / density))
  // Milliseconds one request covers (as in `sliceCut`).
  const request = maxWidth === undefined ? undefined : Math.max(1, maxWidth - 1)
  const span = request !== undefined && byDensity > request ? Math.floor(byDensity / request) * request : byDensity
  // Not `span >> 1`: a sparse history gives spans beyond 2^31 ms (25 days), where the 32-bit shift
  // turns negative and would let a cut reach past the window's start.
  if (state.hi - state.lo + 1 <= span + Math.floor(span / 2)) return undefined
  return splitAfter(state, span)
}

/**
 * Under a width rule, `state` split after the part one request covers at the end the server
 * lists first, and the rest (`undefined` when one request covers it all, or the order is
 * unknown). Where a request over that part reads less than a page, the walk of the part ends
 * with it, so the rest costs no request more than one walk going on would, and the parts are
 * asked at once instead of a round trip apart (an account's years before its first bill).
 */
export const sliceCut = (state: SpotWalkState, maxWidth: number): Split | undefined => {
  // Milliseconds one request covers with both bounds widened by one (`spotSlice`).
  const span = Math.max(1, maxWidth - 1)
  return state.hi - state.lo + 1 <= span ? undefined : splitAfter(state, span)
}

/**
 * The plan of a pooled walk from `start` (a walk's state after at least one page), begun at
 * `now`; `density` is what the page before `start` measured.
 */
export const makeSpotPlan = (
  start: SpotWalkState,
  density: number | undefined,
  options: Pick<SpotPoolOptions, "concurrency" | "limit" | "piecePages" | "maxWidth" | "firstRoundTripMillis"> &
    Partial<Pick<SpotPoolOptions, "bufferPages">>,
  now: number
): SpotPlan => {
  const { bufferPages, concurrency, limit, maxWidth, piecePages } = options
  const opening =
    options.firstRoundTripMillis !== undefined && options.firstRoundTripMillis >= openAllAtMillis
      ? concurrency
      : Math.min(concurrency, 3)
  // The whole window: segments later in the output lie towards this end.
  const globalLo = start.lo
  const globalHi = start.hi
  const started = now
  let requests = 0

  const newSegment = (state: SpotWalkState, segmentDensity: number | undefined): MutableSegment => ({
    state,
    status: "pending",
    density: segmentDensity,
    held: 0,
    queued: 0,
    next: undefined
  })
  let head: MutableSegment | undefined = newSegment(start, density)
  // Segments are handed out read-only and come back as the same objects.
  const own = (segment: Segment): MutableSegment => segment as MutableSegment

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

  // Walks wanted, by Little's law (see "How many walks" above): `headroom` × the rate reached
  // over the last second × the fastest fetch seen.
  let fastest = Number.POSITIVE_INFINITY
  const completions: Array<number> = []
  const wanted = (at: number): number => {
    while (completions.length > 0 && (completions[0] as number) <= at - rateHorizonMillis) completions.shift()
    // Before the pool's first answer: three walks, or every walk far from the exchange
    // (`openAllAtMillis`). The first page came back without waiting, so the limiter has room;
    // Little's law would ask for two, and a third fills the window sooner.
    if (fastest === Number.POSITIVE_INFINITY) return opening
    const rate = completions.length / Math.max(1, Math.min(rateHorizonMillis, at - started))
    return Math.min(concurrency, Math.max(1, Math.ceil(headroom * rate * Math.max(1, fastest))))
  }
  const recordFetch = (timing: Timing) => {
    fastest = Math.min(fastest, timing.now - timing.sent)
    completions.push(timing.now)
  }

  // Under a width rule, a segment whose request over one width reads less than a page, as far
  // as its density says (unknown: after a gap in the history, or before any full page), is cut
  // one width at a time: each part ends with its one request.
  const sparse = (segment: MutableSegment): boolean =>
    maxWidth !== undefined && (segment.density === undefined || segment.density * (maxWidth - 1) < limit)

  // Walks that will still be walking after their next page: one whose unread part holds about
  // a page at its density ends with that page, and is replaced now rather than after it ended,
  // so that walks cut at the same time, which end at the same time, do not leave the pool
  // short for the round trips it takes to cut new ones. So does a sparse one no wider than a request.
  const endsNext = (s: MutableSegment): boolean => {
    const width = s.state.hi - s.state.lo + 1
    return (sparse(s) && width < (maxWidth as number)) || (s.density !== undefined && width * s.density <= limit)
  }
  const walking = (): number => {
    let n = 0
    for (let s = head; s !== undefined; s = s.next) if (s.status === "walking" && !endsNext(s)) n++
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
  const room = (): boolean => {
    let walks = 0
    for (let s = head; s !== undefined; s = s.next) if (s.status === "walking") walks++
    return walks < concurrency && holding() < concurrency
  }
  // A sparse segment waiting (a part of a gap, under a width rule) ends with its one request:
  // it does not stand in for cutting a dense one, whose pages would go a round trip apart.
  const anyPending = (): boolean => {
    for (let s = head; s !== undefined; s = s.next) if (s.status === "pending" && !sparse(s)) return true
    return false
  }

  /**
   * Whether a segment besides `except`, not yet read to its end, is known to be long enough to
   * cut `piecePages` off. One whose density is unknown (after a gap in the history) is not: it
   * cuts itself once it has measured.
   */
  const anyLong = (except: MutableSegment): boolean => {
    for (let s = head; s !== undefined; s = s.next) {
      if (s === except || s.status === "done" || s.density === undefined) continue
      if (cut(s.state, s.density, piecePages, limit) !== undefined) return true
    }
    return false
  }

  // Whether a piece was ever cut: only then may a short segment be halved (see the header).
  let pieced = false
  // Whether a segment besides the one the pool began with has read bills: then the window was
  // long, whatever a piece found empty at its end says (see `afterEnd`).
  const begun = head
  let spread = false
  const cutOff = (segment: MutableSegment, at: number): MutableSegment | undefined => {
    if (walking() >= wanted(at)) return undefined
    const parts = sparse(segment) ? sliceCut(segment.state, maxWidth as number) : pieceOf(segment, at)
    if (parts === undefined) return undefined
    const rest = newSegment(parts.rest, segment.density)
    segment.state = parts.keep
    rest.next = segment.next
    segment.next = rest
    return rest
  }
  /** A segment of known density split after `piecePages` pages, or halved near the window's end. */
  const pieceOf = (segment: MutableSegment, at: number) => {
    if (segment.density === undefined) return undefined
    // Once no segment is long enough to keep `piecePages` (the end of the window is near), a
    // short one is halved instead: its pages would otherwise be walked one round trip at a time.
    // Not in the pool's first window: the limiter's opening burst lets the rate look higher
    // than it can stay, and a short window read next to the exchange would pay for pieces it
    // does not need.
    const pagesLeft = ((segment.state.hi - segment.state.lo + 1) * segment.density) / limit
    const piece = cut(segment.state, segment.density, piecePages, limit, maxWidth)
    if (piece !== undefined) pieced = true
    return (
      piece ??
      (pieced && pagesLeft >= 2 && at - started >= rateHorizonMillis && !anyLong(segment)
        ? cut(segment.state, segment.density, Math.floor(pagesLeft / 2), limit, maxWidth)
        : undefined)
    )
  }

  return {
    head: () => head,
    requests: () => requests,
    room,
    claimNext: (at) => {
      if (!room()) return undefined
      let pending = head
      while (pending !== undefined && pending.status !== "pending") pending = pending.next
      if (pending === undefined) return undefined
      pending.status = "walking"
      return { claimed: pending, created: cutOff(pending, at) }
    },
    cutOff: (segment, at) => cutOff(own(segment), at),
    afterPage: (segment, page, timing) => {
      const s = own(segment)
      recordFetch(timing)
      requests += page.requests ?? 1
      s.state = page.next
      // A page short of the limit leaves something to read only when a width rule sliced it.
      const measured =
        page.received === limit
          ? densityOf(page.before, page.next, page.received)
          : maxWidth === undefined
            ? undefined
            : readDensity(page.before, page.next, page.received)
      if (measured !== undefined) s.density = measured
      s.held += page.bills
      s.queued++
      if (s !== begun && page.bills > 0) spread = true
      // A segment behind the head whose queue is full, this page being the one its walk would wait
      // to hand over, would wait, counted as walking, until the head is emitted, and then walk its
      // last pages one round trip at a time while nothing else is left to do (the tail of a far
      // export). It ends with this page instead: its unread part is handed on whole, as it is, to a
      // segment another walk takes up as soon as one may. The buffer's bound is as before: the
      // queue's pages and the one page waiting to go in. (Ending it a page sooner, at a full
      // queue, handed on the last tenth of a page of many pieces, each to wait for room.)
      if (bufferPages !== undefined && s !== head && s.queued > bufferPages) {
        const rest = newSegment(s.state, s.density)
        rest.next = s.next
        s.next = rest
        s.status = "done"
        return { rest: restAfterPage(s.state), created: rest, schedule: true, last: true }
      }
      // More walks may be wanted: hand the far part of this window on.
      const schedule = room() && !anyPending()
      const created = schedule ? cutOff(s, timing.now) : undefined
      return { rest: restAfterPage(s.state), created, schedule, last: false }
    },
    afterEnd: (segment, page, timing) => {
      const s = own(segment)
      if (timing !== undefined) {
        recordFetch(timing)
        requests += page.requests ?? 1
      }
      s.status = "done"
      // Sparser than measured (a gap in the history): the segments waiting beyond this one start
      // whole and measure for themselves, rather than being carved into pieces that hold nothing
      // (one request each, all the way back to the epoch).
      if (page.first) {
        for (let p = s.next; p !== undefined; p = p.next) if (p.status === "pending") p.density = undefined
      }
      s.held += page.bills
      s.queued++
      if (s !== begun && page.bills > 0) spread = true
      const rest = restAfterSegment(s.state)
      // A piece that found nothing at all, out to the window's end: the window was not long, as the
      // density that cut it said, and its dense part is read whole, never halved on its account.
      // (An incremental pass, new bills close together after a quiet overlap, was halved into
      // walks that each ended half-full: 14-16 requests for 1,000 bills instead of 12.) Not once a
      // piece besides the first has read bills: then the window was long, and the empty piece is
      // where a walk with no start (back to 1970) found its history's beginning. It bounds the
      // last segments, whose halving keeps the limiter busy to the end (a dense history 300 ms away,
      // every walk opened: 14 slots late without it).
      if (page.first && page.bills === 0 && rest === undefined && s !== head && !spread) pieced = false
      return rest
    },
    afterFailure: (segment, timing) => {
      recordFetch(timing)
      own(segment).status = "done"
    },
    emitted: (segment, bills, last) => {
      const s = own(segment)
      s.held -= bills
      s.queued--
      if (last && head === s) head = s.next
    }
  }
}
