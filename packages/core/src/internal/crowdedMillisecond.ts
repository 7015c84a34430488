/**
 * A millisecond fuller than a page, read to its end by the operation's cursor instead of failing
 * the walk. Only the contract operation on v3 has a cursor (`nextKeyId`/`nextKeyTime` in,
 * `nextKey` out), and its shape is an assumption (only some versions of the docs show it), so the
 * walk leans on it here alone: where no time window can list a millisecond's bills, and only when
 * the answer gave a key. Without one the walk fails as before, naming the millisecond.
 *
 * Why it is enough to read on until the listing leaves the millisecond: the crowded page is the
 * start of its window's listing (the first `limit` bills of the window in the server's order), and
 * every one of its bills lies at that millisecond `m`. A sorted listing holds `m`'s bills together,
 * so reading on by the cursor until a bill at another time comes (or the listing ends) has read all
 * of `m`; nothing of the window lies on the side listed before `m`, and the first bill past `m`
 * shows which side is left, which is the server's order.
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { BillsIncomplete, type BillsError } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import type { ServerOrder, SpotStep, SpotWalkState, TimedBill } from "./spotWalk.js"

/**
 * One answer of a time-window operation: its records, and how to read on past them by the
 * operation's cursor when the answer gave one.
 */
export interface Listed<B extends TimedBill> {
  readonly items: ReadonlyArray<B>
  /** The next page of the same listing, by the cursor the answer carried (contract v3's `nextKey`). */
  readonly more?: Effect.Effect<Listed<B>, BillsError> | undefined
  /** The answer said nothing follows it (`hasNextPage: false`). */
  readonly last?: boolean | undefined
  /** The answer said more follow it (`hasNextPage: true`), however few bills it holds. */
  readonly saysMore?: boolean | undefined
}

const millisOf = (bill: TimedBill): number => DateTime.toEpochMillis(bill.cTime)

/**
 * The millisecond a full page (or a shorter one that says more follow) lies at whole, when it
 * lies inside the window `state` still reads: the one case where the time walk cannot go on
 * (`spotStep` fails there). `undefined` otherwise.
 */
export const crowdedAt = (
  state: SpotWalkState,
  received: ReadonlyArray<TimedBill>,
  limit: number,
  saysMore = false
) => {
  const first = received[0]
  if ((received.length !== limit && !saysMore) || first === undefined) return undefined
  const m = millisOf(first)
  if (m < state.lo || m > state.hi) return undefined
  return received.every((bill) => millisOf(bill) === m) ? m : undefined
}

/**
 * The step over `state` after the crowded page `first` at `millisecond`, read on by `more`: every
 * bill of the millisecond once (besides those the walk emitted there already), and the window left
 * on the far side of it. Also the requests it made.
 */
export const readCrowded = <B extends TimedBill>(
  state: SpotWalkState,
  millisecond: number,
  first: ReadonlyArray<B>,
  more: Effect.Effect<Listed<B>, BillsError>,
  limit: number,
  operation: OperationName
): Effect.Effect<{ readonly step: SpotStep<B>; readonly requests: number }, BillsError> =>
  Effect.gen(function* () {
    const incomplete = (description: string) => new BillsIncomplete({ operation, description, millisecond })
    const crowded = `at least ${limit} bills share this millisecond, more than one request returns, and the exchange's cursor stopped before the millisecond's end`
    const seen = new Set(state.edgeMillisecond === millisecond ? state.edgeBillIds : [])
    const bills: Array<B> = []
    const take = (bill: B) => {
      if (seen.has(bill.billId)) return false
      seen.add(bill.billId)
      bills.push(bill)
      return true
    }
    for (const bill of first) take(bill)
    let next: Effect.Effect<Listed<B>, BillsError> | undefined = more
    let requests = 0
    for (;;) {
      if (next === undefined) return yield* Effect.fail(incomplete(crowded))
      const page: Listed<B> = yield* next
      requests++
      if (page.items.length > limit) {
        return yield* Effect.fail(
          incomplete(`the exchange returned ${page.items.length} bills for a limit of ${limit}`)
        )
      }
      let fresh = false
      let past: number | undefined
      for (const bill of page.items) {
        const t = millisOf(bill)
        if (t === millisecond) {
          // A sorted listing holds the millisecond's bills together: none may follow a later one.
          if (past !== undefined)
            return yield* Effect.fail(incomplete("the exchange's cursor listed bills out of time order"))
          if (take(bill)) fresh = true
        } else past ??= t
      }
      if (past !== undefined) {
        const order: ServerOrder = past < millisecond ? "newest-first" : "oldest-first"
        if (state.order !== "unknown" && state.order !== order) {
          return yield* Effect.fail(incomplete(`the exchange listed bills ${state.order} and then ${order}`))
        }
        // The millisecond is read; what is left of the window lies on the side the listing went on to.
        const rest =
          order === "newest-first" ? { lo: state.lo, hi: millisecond - 1 } : { lo: millisecond + 1, hi: state.hi }
        const left = rest.lo <= rest.hi
        return {
          step: {
            bills,
            order,
            next: left ? { ...state, ...rest, order, edgeMillisecond: undefined, edgeBillIds: [] } : undefined
          },
          requests
        }
      }
      // The listing ended inside the millisecond: it was all the window held.
      if ((page.items.length < limit && page.saysMore !== true) || page.last === true)
        return { step: { bills, order: state.order, next: undefined }, requests }
      // A full page that brought nothing new would have the walk go round for ever.
      if (!fresh) return yield* Effect.fail(incomplete(crowded))
      next = page.more
    }
  })
