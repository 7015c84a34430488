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
 * which `dMin` tracks once a few requests have been seen; the margin (25 ms by default)
 * absorbs what is left, and the millisecond rounding of `requestTime`. The latest arrival
 * is never placed after `f_q`: with stamps the rule is never slower than without.
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
}

/** A rule that has seen nothing yet. */
export const make = (): PermitRule => {
  let minE = Number.POSITIVE_INFINITY
  let refused = false
  return {
    latestArrival: (settled) =>
      settled.serverTime === undefined || refused
        ? settled.finished
        : Math.min(settled.finished, settled.serverTime - minE),
    record: (settled, rateLimited) => {
      if (rateLimited) refused = true
      if (settled.serverTime !== undefined) minE = Math.min(minE, settled.serverTime - settled.granted)
    }
  }
}
