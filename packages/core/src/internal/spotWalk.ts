/**
 * One step of the spot walk, as a pure function of the walk's state and one response.
 *
 * The spot operation has no page number and no total, and the interface does not say in which
 * order records come nor whether `after` / `before` include bills at exactly those times. So
 * the walk keeps the part of the window it has not finished, `[lo, hi]` (inclusive epoch ms),
 * and asks for it with every bound widened by one millisecond until the server shows that
 * bound to be inclusive; whatever comes back outside `[lo, hi]` is dropped.
 *
 * A page with fewer records than the limit is everything the server has in its window, which
 * covers `[lo, hi]`: the walk ends, unless the answer says more follow (`hasNextPage: true`,
 * which the futures interface's v3 docs show on a page of one bill): such a page is read as a
 * full one, the first of the window's records in the server's order. A full page is the first `limit` records of the window in
 * the server's order. Newest-first, every bill later than the page's oldest millisecond `m`
 * is in it, so the window shrinks to `[lo, m]`; `m` itself stays in the window because only
 * some of its bills may have fitted, and the ids already emitted at `m` are remembered (and
 * only those: memory stays bounded however long the walk) and dropped when they come again.
 * Oldest-first is the mirror image. The order is read off the pages, never assumed.
 *
 * Every full page shrinks the window, proves a bound inclusive (which happens at most twice),
 * ends the walk, or fails: when it does none of these, all of it lies in one millisecond of
 * the window, so that millisecond holds at least `limit` bills and no time window can list
 * them all. Contradictions (records outside the requested window, unsorted pages, an order
 * that flips between pages, more records than asked for) fail too, rather than loop or skip.
 */
import type { ListOrder } from "../ListOrder.js"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import { BillsIncomplete } from "../Errors.js"
import type { OperationName } from "../Operation.js"

/**
 * What the walk reads of a record: its id and its time. The spot and the contract operations
 * are both walked by time window, with records of their own kinds.
 */
export interface TimedBill {
  readonly billId: string
  readonly cTime: DateTime.Utc
}

/**
 * The order the server lists records in, as far as the pages so far have shown it.
 */
export type ServerOrder = "unknown" | ListOrder

/**
 * What the walk knows between two requests.
 */
export interface SpotWalkState {
  /** First millisecond of the window still to read. */
  readonly lo: number
  /** Last millisecond of the window still to read; the window is empty when `hi < lo`. */
  readonly hi: number
  /** A bill at exactly `after` came back once, so `after` may be sent as `lo` itself. */
  readonly inclusiveAfter: boolean
  /** A bill at exactly `before` came back once, so `before` may be sent as `hi` itself. */
  readonly inclusiveBefore: boolean
  readonly order: ServerOrder
  /** The millisecond the window was last narrowed to, whose bills may come again. */
  readonly edgeMillisecond?: number | undefined
  /** Ids of the bills already emitted at `edgeMillisecond`. */
  readonly edgeBillIds: ReadonlyArray<string>
}

/**
 * The time bounds of the next request.
 */
export interface SpotRequest {
  /** Omitted when the window starts at 0, so that nothing below needs asking for. */
  readonly after: number | undefined
  readonly before: number
}

/**
 * What one response contributes: the bills to emit, in the server's order, and the state
 * after it (`undefined` once the window is read completely).
 */
export interface SpotStep<B extends TimedBill = TimedBill> {
  readonly bills: ReadonlyArray<B>
  /** The order the pages have shown so far, this one included (also when the walk ends with it). */
  readonly order?: ServerOrder | undefined
  readonly next: SpotWalkState | undefined
}

/**
 * The bounds that cover `[lo, hi]` whether or not the server includes bills at a bound.
 */
export const spotRequest = (state: SpotWalkState): SpotRequest => ({
  after: state.inclusiveAfter ? state.lo : state.lo > 0 ? state.lo - 1 : undefined,
  before: state.inclusiveBefore ? state.hi : state.hi + 1
})

const millisOf = (bill: TimedBill): number => DateTime.toEpochMillis(bill.cTime)

/**
 * Reads one response to `request` (made from `state`, with `limit`) and moves the walk on.
 * `operation` names the walk in its errors.
 */
export const spotStep = <B extends TimedBill>(
  state: SpotWalkState,
  request: SpotRequest,
  received: ReadonlyArray<B>,
  limit: number,
  operation: OperationName = "spotBills",
  saysMore = false
): Either.Either<SpotStep<B>, BillsIncomplete> => {
  const incomplete = (description: string, millisecond?: number): Either.Either<never, BillsIncomplete> =>
    Either.left(
      new BillsIncomplete({
        operation,
        description,
        ...(millisecond === undefined ? {} : { millisecond })
      })
    )
  return stepWith(state, request, received, limit, incomplete, saysMore)
}

const stepWith = <B extends TimedBill>(
  state: SpotWalkState,
  request: SpotRequest,
  received: ReadonlyArray<B>,
  limit: number,
  incomplete: (description: string, millisecond?: number) => Either.Either<never, BillsIncomplete>,
  saysMore: boolean
): Either.Either<SpotStep<B>, BillsIncomplete> => {
  if (received.length > limit) {
    return incomplete(`the exchange returned ${received.length} bills for a limit of ${limit}`)
  }
  const times = received.map(millisOf)
  const floor = request.after ?? 0
  let falls = false
  let rises = false
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number
    if (t < floor || t > request.before) {
      return incomplete(
        `the exchange returned a bill at ${t} for the window from ${floor} to ${request.before}; its answers cannot be trusted to be complete`
      )
    }
    const previous = times[i - 1]
    if (previous !== undefined && previous > t) falls = true
    if (previous !== undefined && previous < t) rises = true
  }
  if (falls && rises) return incomplete("the exchange returned a page that is not sorted by time")
  const seen: ServerOrder = falls ? "newest-first" : rises ? "oldest-first" : "unknown"
  if (state.order !== "unknown" && seen !== "unknown" && seen !== state.order) {
    return incomplete(`the exchange listed bills ${state.order} and then ${seen}`)
  }
  const order = state.order === "unknown" ? seen : state.order
  // A bill at a widened bound proves that side inclusive; asking for the window itself from
  // then on keeps bills outside it from filling pages again and again.
  const inclusiveAfter = state.inclusiveAfter || (request.after !== undefined && times.includes(request.after))
  const inclusiveBefore = state.inclusiveBefore || times.includes(request.before)

  const { lo, hi } = state
  const edgeIds = new Set(state.edgeBillIds)
  const pageIds = new Set<string>()
  const bills: Array<B> = []
  for (let i = 0; i < received.length; i++) {
    const bill = received[i] as B
    const t = times[i] as number
    if (t < lo || t > hi) continue
    if (t === state.edgeMillisecond && edgeIds.has(bill.billId)) continue
    if (pageIds.has(bill.billId)) continue
    pageIds.add(bill.billId)
    bills.push(bill)
  }
  if (received.length < limit && !saysMore) return Either.right({ bills, next: undefined, order })
  if (received.length === 0) {
    return incomplete("the exchange answered no bills for the window and said more follow")
  }

  let nextLo = lo
  let nextHi = hi
  let edge = state.edgeMillisecond
  if (order === "newest-first") {
    const oldest = times[times.length - 1] as number
    // Everything later than the page's oldest bill is in the page; below lo, that is all of the window.
    if (oldest < lo) return Either.right({ bills, next: undefined, order })
    nextHi = Math.min(hi, oldest)
    edge = nextHi
  } else if (order === "oldest-first") {
    const newest = times[times.length - 1] as number
    if (newest > hi) return Either.right({ bills, next: undefined, order })
    nextLo = Math.max(lo, newest)
    edge = nextLo
  }
  // With the order still unknown the page lies in one millisecond: outside the window it only
  // proved a bound inclusive, inside it is caught just below.
  if (
    nextLo === lo &&
    nextHi === hi &&
    inclusiveAfter === state.inclusiveAfter &&
    inclusiveBefore === state.inclusiveBefore
  ) {
    const crowded = order === "newest-first" ? hi : order === "oldest-first" ? lo : (times[0] as number)
    return incomplete(
      received.length < limit
        ? `the exchange said more bills follow a page of ${received.length} (limit ${limit}) that lies in this millisecond, and gave no cursor to read on by: no time window shows on which side of it the rest lies`
        : `at least ${limit} bills share this millisecond, more than one request returns, and no filter provably splits them (bizType values beyond the documented ones exist and coin ids cannot be listed)`,
      crowded
    )
  }
  const carried = edge === state.edgeMillisecond ? state.edgeBillIds : []
  const edgeBillIds = [...carried, ...bills.filter((bill) => millisOf(bill) === edge).map((bill) => bill.billId)]
  return Either.right({
    bills,
    next: {
      lo: nextLo,
      hi: nextHi,
      inclusiveAfter,
      inclusiveBefore,
      order,
      edgeMillisecond: edge,
      edgeBillIds
    }
  })
}

/**
 * The state without the part before `servedFrom`, which the exchange no longer serves;
 * `undefined` when nothing is left.
 */
export const spotClip = (state: SpotWalkState, servedFrom: number | undefined): SpotWalkState | undefined => {
  if (servedFrom === undefined || servedFrom <= state.lo) return state
  if (servedFrom > state.hi) return undefined
  const edgeKept = state.edgeMillisecond !== undefined && state.edgeMillisecond >= servedFrom
  return {
    ...state,
    lo: servedFrom,
    edgeMillisecond: edgeKept ? state.edgeMillisecond : undefined,
    edgeBillIds: edgeKept ? state.edgeBillIds : []
  }
}

/**
 * The part of `state` the next request covers when the exchange accepts windows of at most
 * `maxWidth` between its bounds (which are widened by a millisecond each): all of it when it
 * fits, else the end the server lists first (the start when it lists oldest first).
 */
export const spotSlice = (state: SpotWalkState, maxWidth: number | undefined): SpotWalkState => {
  if (maxWidth === undefined || state.hi - state.lo <= maxWidth - 2) return state
  const span = Math.max(0, maxWidth - 2)
  return state.order === "oldest-first" ? { ...state, hi: state.lo + span } : { ...state, lo: state.hi - span }
}

/**
 * The step over the whole window from the step over its slice: the part of the window beside
 * the slice stays to read. A slice at the later end that shows the server lists oldest first
 * cannot be continued (what is left would be two ranges): its bills are left for the walk from
 * the start, which only the order learned here moves on.
 */
export const spotJoin = <B extends TimedBill>(
  state: SpotWalkState,
  slice: SpotWalkState,
  step: SpotStep<B>
): SpotStep<B> => {
  if (slice.lo === state.lo && slice.hi === state.hi) return step
  const atStart = slice.lo === state.lo
  // A slice at the later end read completely that shows the server lists oldest first: its bills
  // come after the rest of the window's, so they are left for the walk from the start too.
  if (!atStart && step.next === undefined && step.order === "oldest-first") {
    return { bills: [], next: { ...state, order: "oldest-first", edgeMillisecond: undefined, edgeBillIds: [] } }
  }
  if (step.next === undefined) {
    const rest = atStart ? { lo: slice.hi + 1, hi: state.hi } : { lo: state.lo, hi: slice.lo - 1 }
    // The order the slice showed goes on with the rest: the pool cuts by it.
    const order = step.order === undefined || step.order === "unknown" ? state.order : step.order
    return { bills: step.bills, next: { ...state, ...rest, order, edgeMillisecond: undefined, edgeBillIds: [] } }
  }
  const next = step.next
  if (!atStart && next.order === "oldest-first") {
    return {
      bills: [],
      next: {
        ...state,
        order: "oldest-first",
        inclusiveAfter: next.inclusiveAfter,
        inclusiveBefore: next.inclusiveBefore
      }
    }
  }
  return { bills: step.bills, next: atStart ? { ...next, hi: state.hi } : { ...next, lo: state.lo } }
}
