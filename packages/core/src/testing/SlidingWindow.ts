/**
 * The fake exchange's rate limit: a sliding window over the arrival times of admitted requests.
 * A request at time `t` is admitted when fewer than `limit` admitted requests arrived in
 * `(t - windowMillis, t]`. Rejected requests are not recorded, so a client that backs off after
 * a 429 is not punished for the rejected attempts.
 *
 * @since 0.1.0
 */

/**
 * Rate-limit settings; `false` turns the limit off.
 *
 * @since 0.1.0
 * @category models
 */
export type RateLimit = { readonly limit: number; readonly windowMillis: number } | false

/**
 * The interface's limit: 10 requests per second, per operation.
 *
 * @since 0.1.0
 * @category utils
 */
export const defaultRateLimit: RateLimit = { limit: 10, windowMillis: 1000 }

/**
 * Mutable window state of one operation.
 *
 * @since 0.1.0
 * @category models
 */
export interface SlidingWindow {
  /** Admits (and records) or rejects an arrival at `now`. */
  readonly tryAdmit: (now: number, rateLimit: RateLimit) => boolean
  /** Records an arrival that used capacity whatever the limit says (a faulted request). */
  readonly record: (now: number) => void
  readonly clear: () => void
}

/**
 * Creates an empty window.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): SlidingWindow => {
  let arrivals: Array<number> = []
  const prune = (now: number, windowMillis: number): void => {
    let drop = 0
    while (drop < arrivals.length && (arrivals[drop] as number) <= now - windowMillis) drop++
    if (drop > 0) arrivals = arrivals.slice(drop)
  }
  return {
    tryAdmit: (now, rateLimit) => {
      if (rateLimit === false) return true
      prune(now, rateLimit.windowMillis)
      if (arrivals.length >= rateLimit.limit) return false
      arrivals.push(now)
      return true
    },
    record: (now) => {
      arrivals.push(now)
    },
    clear: () => {
      arrivals = []
    }
  }
}
