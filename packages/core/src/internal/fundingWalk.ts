/**
 * One step of the funding walk, as a pure function of the walk's state and one page.
 *
 * The walk asks for pages 1, 2, … of a window whose end is pinned when the walk starts, so
 * bills created later cannot shift the pages. The server's bounds may or may not include
 * bills at exactly `startTime` / `endTime`, so both are widened by one millisecond and the
 * bills are filtered to `[from, end)` here. A bill that still lands in the part already read
 * (a late booking) pushes the later bills one place down, so a page can repeat the end of the
 * one before: its ids are remembered, and only those.
 *
 * The walk goes on while the page says `hasNextPage` and stops when it does not: the exchange
 * knows its pages, and its v3 docs' sample (`total: 12`, one item, `pages: 1`, `hasNextPage:
 * false`) shows a `total` that counts something other than the pages' items. The `total` is
 * still checked against the walk, so that a page the server drops or a shift larger than one
 * page fails the walk instead of leaving a silent gap; where the last page leaves the total
 * unlisted, its bills are delivered first and the walk fails after them, naming the fields that
 * disagree, so nothing received is lost and nothing missing passes unseen.
 */
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import type { FundingBill, FundingBillsPage } from "../Bill.js"
import { BillsIncomplete } from "../Errors.js"

/**
 * What the walk knows between two requests.
 */
export interface FundingWalkState {
  /** First millisecond of the window. */
  readonly from: number
  /** First millisecond after the window (pinned). */
  readonly end: number
  /** The page to ask for next. */
  readonly pageIndex: number
  /** Ids of the page before, which a shift may repeat. */
  readonly previousPageBillIds: ReadonlyArray<string>
  /** The total the page before reported. */
  readonly total?: number | undefined
}

/**
 * The time bounds of a request: widened by one millisecond on each side.
 */
export const fundingRequest = (
  state: FundingWalkState
): { readonly startTime: number | undefined; readonly endTime: number } => ({
  startTime: state.from > 0 ? state.from - 1 : undefined,
  endTime: state.end
})

/**
 * What one page contributes: the bills to emit, in the server's order, and the state after it
 * (`undefined` after the last page).
 */
export interface FundingStep {
  readonly bills: ReadonlyArray<FundingBill>
  readonly next: FundingWalkState | undefined
  /** The failure that follows this page's bills: the page is the last, and doubted. */
  readonly incomplete?: BillsIncomplete | undefined
}

const incomplete = (description: string): Either.Either<never, BillsIncomplete> =>
  Either.left(new BillsIncomplete({ operation: "fundingBills", description }))

/**
 * Reads page `state.pageIndex` (asked for with `pageSize`) and moves the walk on.
 */
export const fundingStep = (
  state: FundingWalkState,
  page: FundingBillsPage,
  pageSize: number
): Either.Either<FundingStep, BillsIncomplete> => {
  const { items, total } = page
  if (items.length > pageSize) {
    return incomplete(`the exchange returned ${items.length} bills on a page of ${pageSize}`)
  }
  if (state.total !== undefined && total < state.total) {
    return incomplete(
      `the number of bills in the window fell from ${state.total} to ${total} during the walk, which moves bills to pages already read`
    )
  }
  if (state.total !== undefined && total - state.total > pageSize) {
    return incomplete(
      `${total - state.total} bills were added to the window between two pages, more than one page can absorb`
    )
  }
  // Bounds widened by a millisecond still bound the answer: a bill beyond them means the server
  // read the window differently, and pages counted over another window cannot be trusted.
  const { startTime, endTime } = fundingRequest(state)
  for (const bill of items) {
    const t = DateTime.toEpochMillis(bill.cTime)
    if (t < (startTime ?? 0) || t > endTime) {
      return incomplete(
        `the exchange returned a bill at ${t} for the window from ${startTime ?? 0} to ${endTime}; its answers cannot be trusted to be complete`
      )
    }
  }
  const previous = new Set(state.previousPageBillIds)
  const pageIds = new Set<string>()
  const bills: Array<FundingBill> = []
  let fresh = 0
  for (const bill of items) {
    if (previous.has(bill.billId) || pageIds.has(bill.billId)) continue
    pageIds.add(bill.billId)
    fresh++
    const t = DateTime.toEpochMillis(bill.cTime)
    if (t >= state.from && t < state.end) bills.push(bill)
  }
  const read = (state.pageIndex - 1) * pageSize + items.length
  if (!page.hasNextPage) {
    if (read < total) {
      const pages = page.pages === undefined ? "" : `, pages ${page.pages}`
      return Either.right({
        bills,
        next: undefined,
        incomplete: new BillsIncomplete({
          operation: "fundingBills",
          description: `page ${state.pageIndex} says it is the last (hasNextPage false${pages}), but it holds ${items.length} bills and ${read} of the total ${total} have been listed; the ${bills.length} bills received were delivered, the rest of the window is not known to be read`
        })
      })
    }
    return Either.right({ bills, next: undefined })
  }
  // A next page must bring something new: otherwise the walk would go on forever.
  if (fresh === 0) {
    return incomplete(`page ${state.pageIndex} repeats the page before and says more follow`)
  }
  return Either.right({
    bills,
    next: {
      from: state.from,
      end: state.end,
      pageIndex: state.pageIndex + 1,
      previousPageBillIds: items.map((bill) => bill.billId),
      total
    }
  })
}
