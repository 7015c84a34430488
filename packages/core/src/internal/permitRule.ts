/**
 * When the request of a permit can last have reached the server: the rule that decides how
 * soon permit `p` may follow permit `q = p - limit` in a sliding window.
 *
 * The server counts a request when it arrives. Write `g` for a permit's grant (client clock),
 * `d` for the time from grant to arrival (signing, queueing, the way there), `f` for when its
 * answer was read, and `s` for the server's `requestTime` stamp (server clock, offset `o`
 * from the client's monotonic clock). Permit `p` is safe when `g_p + d_p >= g_q + d_q + window`.
 *
 * - Without a stamp, arrival lies before the answer: `g_q + d_q <= f_q`. Waiting until
 *   `f_q + window + margin` is safe whatever the latency. It is the rule the limiter always
 *   had, and what costs a round trip per slot.
 * - With a stamp, `s_q - g_q = d_q + o`. The smallest such value seen so far, `minE`, is
 *   `o + dMin`, where `dMin` is the shortest way there observed. Then `s_q - minE = g_q + d_q - dMin`,
 *   and waiting until `s_q - minE + window + margin` gives
 *   `arrival_p - arrival_q >= window + margin + (d_p - dMin)`, which is at least a window as long
 *   as no request reaches the server more than `margin` faster than the fastest one seen.
 *   The offset `o` cancels out, so clock skew does not matter; only the rates of the two
 *   clocks must agree over a window (crystal drift is parts per million).
 *
 * Jitter only lengthens `d_p` above `dMin` (safe) or shortens it towards the least jitter,
 * which `dMin` tracks once a few requests have been seen. A way that has just become shorter
 * (a cold start: connection setup, JIT, a loaded machine) is not ruled out by `dMin` alone, so
 * the spread of `d` over the last 20 requests is added: the rule assumes the next request is
 * not faster than the fastest seen by more than the recent variation plus the margin (25 ms by
 * default, which also covers the millisecond rounding of `requestTime`). Steady jitter `J`
 * costs about `J / 2` per slot; a steady route costs nothing. The latest arrival
 * is never placed after `f_q`: with stamps the rule is never slower than without.
 *
 * The stamps are trusted once 10 answers have been seen, one of them to a request granted after
 * an earlier answer had been read; until then the rule is the one that needs no assumption. A
 * request sent while another's connection stood idle can reuse it, so the answers seen then
 * include one that took no connection set-up (TCP, TLS), and `dMin` is not the set-up's: a burst
 * of first requests that all opened connections would otherwise pass for the fastest way there.
 * Both walks send their first request alone, so the first window's answers suffice.
 *
 * Should the assumption fail anyway (a route that suddenly gets much shorter), a 429 shows it:
 * from the first request refused for the rate limit on, stamps are ignored and the window goes
 * back to the rule that needs no assumption.
 */

/** What the limiter keeps of a finished request (client times in monotonic ms). */
export interface Settled {
  readonly granted: number
  readonly finished: number
  /** The server's `requestTime`, if the answer carried one. */
  readonly serverTime: number | undefined
}

/** The rule's state: the smallest stamp-minus-grant seen, and whether a 429 has been seen. */
export interface PermitRule {
  /** The latest client instant at which the request of `settled` can have reached the server. */
  readonly latestArrival: (settled: Settled) => number
  /** Learns from a finished request. */
  readonly record: (settled: Settled, rateLimited: boolean) => void
  /** Whether stamps place arrivals now: a permit waiting under the other rule may go sooner. */
  readonly trusted: () => boolean
}

/** Stamps kept to measure how much the way to the server varies. */
const recentStamps = 20

/** Answers seen before the stamps are trusted. */
const trustAfter = 10

/** A rule that has seen nothing yet. */
export const make = (): PermitRule => {
  let minE = Number.POSITIVE_INFINITY
  const recent: Array<number> = []
  let refused = false
  let stamped = 0
  // The earliest answer read, and whether a request granted after it has been answered.
  let firstFinished = Number.POSITIVE_INFINITY
  let reused = false
  /** How much the way to the server varied lately: a drop of that size is not ruled out. */
  const spread = () => (recent.length === 0 ? 0 : Math.max(...recent) - Math.min(...recent))
  const trusted = () => !refused && reused && stamped >= trustAfter
  return {
    latestArrival: (settled) =>
      settled.serverTime === undefined || !trusted()
        ? settled.finished
        : Math.min(settled.finished, settled.serverTime - minE + spread()),
    record: (settled, rateLimited) => {
      if (rateLimited) refused = true
      if (settled.serverTime !== undefined) {
        const e = settled.serverTime - settled.granted
        minE = Math.min(minE, e)
        recent.push(e)
        if (recent.length > recentStamps) recent.shift()
        stamped++
        if (settled.granted >= firstFinished) reused = true
      }
      firstFinished = Math.min(firstFinished, settled.finished)
    },
    trusted
  }
}
