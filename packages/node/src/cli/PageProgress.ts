/**
 * What one page of a walk says about the walk's progress, for the progress lines of `export`
 * and `sync`: the share done, the time reached, and where the exchange said its history starts.
 *
 * @since 0.1.0
 */
import type { ContractPage, FundingPage, SpotPage } from "@account-bills/core"
import { maxPageSize } from "@account-bills/core"
import * as DateTime from "effect/DateTime"
import * as Predicate from "effect/Predicate"
import { fundingShare, spotReached, spotShare } from "./ProgressEstimate.js"

/**
 * How far a walk has come after a page.
 *
 * @since 0.1.0
 * @category models
 */
export interface PageProgress {
  /** Requests the walk has completed (its cursor's count). */
  readonly requests: number
  /** Share of the walk done, 0 to 1; `undefined` when not known. */
  readonly share: number | undefined
  /** Epoch ms the walk has read up to, when known. */
  readonly reached: number | undefined
  /** Epoch ms where the exchange said its history starts, when the walk was clipped to it. */
  readonly servedFrom: number | undefined
}

/**
 * Where the exchange's history starts, from a page that carries it: the walks set
 * `servedFrom` on every page after they clipped their window to what the exchange serves.
 */
const servedFromOf = (page: object): number | undefined =>
  Predicate.hasProperty(page, "servedFrom") && DateTime.isDateTime(page.servedFrom)
    ? DateTime.toEpochMillis(page.servedFrom)
    : undefined

/**
 * The progress a funding page shows.
 *
 * @since 0.1.0
 * @category utils
 */
export const fundingProgress = (page: FundingPage): PageProgress => {
  const last = page.bills[page.bills.length - 1]
  return {
    requests: page.requests,
    share: fundingShare({
      pageIndex: page.pageIndex,
      total: page.total,
      pageSize: maxPageSize,
      done: page.cursor.done
    }),
    reached: last === undefined ? undefined : DateTime.toEpochMillis(last.cTime),
    servedFrom: servedFromOf(page)
  }
}

/**
 * The progress a spot page shows, or a contract page (the same time-window walk).
 *
 * @since 0.1.0
 * @category utils
 */
export const spotProgress = (page: SpotPage | ContractPage): PageProgress => {
  const servedFrom = servedFromOf(page)
  return {
    requests: page.requests,
    share: spotShare(page.cursor, servedFrom),
    reached: spotReached(page.cursor),
    servedFrom
  }
}

/**
 * The one line said when the exchange's history turns out to start later than asked.
 *
 * @since 0.1.0
 * @category utils
 */
export const servedFromNote = (label: string, servedFrom: number): string =>
  `${label}: the exchange serves bills from ${new Date(servedFrom).toISOString()} on; older ones are out of its reach`
