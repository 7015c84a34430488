/**
 * How far an export has come and how long the rest should take: pure arithmetic on what the
 * walks' cursors say, kept apart from the drawing so it can be tested number for number.
 *
 * @since 0.1.0
 */

/**
 * Without `--from` a spot walk reads from the beginning of time, and a share of fifty years
 * would sit at 0 % until the end. The exchange serves the last three months only (code 40704),
 * so that is the window whose share is shown then.
 *
 * @since 0.1.0
 * @category constants
 */
export const servedHistoryMillis = 90 * 24 * 60 * 60 * 1000

/**
 * Below 1 while a walk is not done: the estimate may run ahead of the truth (more funding
 * bills booked meanwhile, spot history older than the window assumed), and 100 % with more
 * to come would be a lie.
 */
const notDone = 0.99

const clamp = (share: number, done: boolean): number =>
  done ? 1 : Number.isFinite(share) ? Math.min(notDone, Math.max(0, share)) : 0

/**
 * Share of a funding walk done after `pageIndex` pages of `pageSize`, given the `total` the
 * exchange reported (every page reports it; the first page is enough).
 *
 * @since 0.1.0
 * @category utils
 */
export const fundingShare = (page: {
  readonly pageIndex: number
  readonly total: number
  readonly pageSize: number
  readonly done: boolean
}): number => {
  const pages = Math.ceil(page.total / page.pageSize)
  return clamp(pages === 0 ? 1 : page.pageIndex / pages, page.done)
}

/**
 * Share of a spot walk's time window already covered, or `undefined` when that is not known.
 * The cursor's `[lo, hi]` (inclusive) is what is left to read as one range, whatever order the
 * exchange lists in; the window is `[from, end)`. Without `from` it starts where the exchange
 * said its history starts (`servedFrom`, once a page carries it), else three months before the
 * end (what the exchange's v2 interface serves). When the walk goes on below that assumed
 * start, the assumption was wrong: the share is unknown then, rather than 99 % for as long as
 * the older history takes.
 *
 * @since 0.1.0
 * @category utils
 */
export const spotShare = (
  cursor: {
    readonly from?: number | undefined
    readonly end: number
    readonly lo: number
    readonly hi: number
    readonly done: boolean
  },
  servedFrom?: number
): number | undefined => {
  if (cursor.done) return 1
  const assumed = cursor.from === undefined && servedFrom === undefined
  const start = Math.max(cursor.from ?? 0, servedFrom ?? 0, assumed ? cursor.end - servedHistoryMillis : 0)
  const span = cursor.end - start
  if (span <= 0) return assumed ? undefined : clamp(1, false)
  const left = Math.max(0, Math.min(cursor.hi, cursor.end - 1) - Math.max(cursor.lo, start) + 1)
  if (assumed && left === 0 && cursor.lo < start) return undefined
  return clamp(1 - left / span, false)
}

/**
 * The time a spot walk has read up to: everything from here to the end of its window (listed
 * newest first) or from its start to here (oldest first) has been read.
 *
 * @since 0.1.0
 * @category utils
 */
export const spotReached = (cursor: {
  readonly lo: number
  readonly hi: number
  readonly order: "unknown" | "newest-first" | "oldest-first"
}): number => (cursor.order === "oldest-first" ? cursor.lo : cursor.hi + 1)

/**
 * Milliseconds still to go at the pace so far: the time taken per share done, times the share
 * left. `undefined` before anything is done, when there is no pace to go by.
 *
 * @since 0.1.0
 * @category utils
 */
export const etaMillis = (share: number | undefined, elapsedMillis: number): number | undefined => {
  if (share === undefined) return undefined
  if (share >= 1) return 0
  if (share <= 0 || elapsedMillis <= 0) return undefined
  return Math.round((elapsedMillis * (1 - share)) / share)
}

/**
 * A share as a whole percentage, rounded down, so 100 % means done.
 *
 * @since 0.1.0
 * @category utils
 */
export const percent = (share: number): string => `${Math.floor(share * 100)}%`

/**
 * A duration for a person: `45 s`, `12 min 5 s`, `2 h 3 min`; `?` when unknown.
 *
 * @since 0.1.0
 * @category utils
 */
export const duration = (millis: number | undefined): string => {
  if (millis === undefined) return "?"
  const total = Math.ceil(millis / 1000)
  if (total < 60) return `${total} s`
  const minutes = Math.floor(total / 60)
  if (minutes < 60) return `${minutes} min ${total % 60} s`
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}
