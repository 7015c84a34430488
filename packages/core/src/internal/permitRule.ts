/**
 * When the request of a permit can last have reached the server: the rule that decides how
 * soon permit `p` may follow permit `q = p - limit` in a sliding window.
 *
 * The server counts a request when it arrives. Write `g` for a permit's grant (client clock),
 * `d` for the time from grant to arrival (signing, queueing, the way there), `b` for the time
 * from arrival to the answer read (the server's work, the way back, reading the body), so that
 * the answer is read at `f = g + d + b`, and `s` for the server's `requestTime` stamp (server
 * clock, offset `o` from the client's monotonic clock). Permit `p` is safe when
 * `g_p + d_p >= g_q + d_q + window`. The limiter waits until `opens(q) + window + margin`.
 *
 * - **The answer rule** (no assumption): arrival lies before the answer, `g_q + d_q <= f_q`, and
 *   `d_p >= 0`, so `opens(q) = f_q` is safe whatever the latency. It costs a round trip per
 *   slot: at most `limit / (window + margin + RTT)`.
 * - **The stamp rule** (v2: answers carry `requestTime`): `s_q - g_q = d_q + o`. The smallest such
 *   value seen so far, `minE`, is `o + dMin`, where `dMin` is the shortest way there observed.
 *   Then `s_q - minE = g_q + d_q - dMin`, and `opens(q) = s_q - minE + guard` gives
 *   `arrival_p - arrival_q >= window + margin + guard + (d_p - dMin)`, which is at least a window
 *   as long as no request reaches the server more than `guard + margin` faster than the fastest
 *   one seen. The offset `o` cancels out, so clock skew does not matter; only the rates of the
 *   two clocks must agree over a window (crystal drift is parts per million). `guard` bounds how
 *   far `dMin` may still fall: over the first 20 stamps, how much they varied (a first window
 *   whose ways were all long, a cold start: connection setup, JIT, a loaded machine, can be
 *   undercut by as much as they varied); after that, how far the last 20 fell below every older
 *   one (0 once the fastest way has settled). Jitter lengthens `d_p` above `dMin` (safe), so each
 *   slot costs `p`'s own excess over the fastest way, about `J / 2` for steady jitter `J`, and a
 *   steady route nothing. (It was how much the last 20 stamps varied, which costs every slot the
 *   spread of the ways, 40-140 ms over loopback on a loaded machine, where the excess was 10-15.)
 * - **The round-trip rule** (v3: answers carry no stamp). Only `r = f - g = d + b` is seen.
 *   `opens(q) = g_q + (r_q - rMin) + guard_r`, where `rMin` is the fastest round trip seen (that
 *   of request `m`) and `guard_r` bounds how far it may still fall as for stamps, gives
 *   `arrival_p - arrival_q >= window + margin + guard_r + (r_q - rMin) - (d_q - d_p)`. Now
 *   `r_q - rMin = (d_q - d_m) + (b_q - b_m)`: as long as `q`'s way back was not shorter than
 *   `m`'s (`m`'s is about the shortest: its round trip is) and `p`'s way there not shorter than
 *   `m`'s by more than `guard_r` and the margin, that is at least a window. Why those hold: the
 *   legs of the fastest round trip are each about the fastest of their kind, the server's work
 *   after counting a request adds to `b`, never takes from it, and a request whose way there was
 *   long (a new connection, a pause in signing) has a long round trip, so its own excess is in
 *   `r_q - rMin` when `p` is placed; a route that has become shorter than any seen, by more than
 *   the guard and the margin, is the one case left, as for the stamp rule, and a 429 ends the
 *   rule for good. On a steady route it is "a window after the grant", whatever the split of the
 *   legs. It uses only the client's clock. Jitter costs each slot `q`'s own excess over the
 *   fastest round trip, and never more than the answer rule. (It was how much the last 20 round
 *   trips varied, whatever `q`'s own was.)
 *
 * A permit asleep until the instant its dependency's window lets it go checks that instant again
 * when it wakes: an answer read meanwhile may show a way there faster than any seen (the fastest
 * moved, the guard grew) or a 429, and the instant then lies later (a loopback run on a loaded
 * machine: ten first requests all 200+ ms on their way, then one of 95 ms, and a permit placed by
 * the slow ones went after that answer anyway: an eleventh arrival in a second).
 *
 * No rule is ever later than the answer: the answer rule is the cap of both others. The time
 * endpoint's stamp (`/api/v3/time`) does not help without stamps on the answers: it places
 * the arrivals of time requests, not of bill requests, and what it could tell (the one-way
 * share of the round trip) does not enter the round-trip rule.
 *
 * Stamps and round trips are trusted once 10 have been seen, one of them to a request granted
 * after an earlier answer had been read; until then the rule is the one that needs no
 * assumption. A request sent while another's connection stood idle can reuse it, so the answers
 * seen then include one that took no connection set-up (TCP, TLS), and the fastest way seen is
 * not the set-up's: a burst of first requests that all opened connections would otherwise pass
 * for the fastest way there (and vary as little as a steady route). Both walks send their first
 * request alone, so the first window's answers suffice. Ten, not fewer: a varying route shows
 * how far it varies only over several requests, and until it has, the spread reads too small.
 *
 * Should an assumption fail anyway (a route that suddenly gets much shorter), a 429 shows it:
 * from the first request refused for the rate limit on, stamps and round trips are ignored and
 * the window goes back to the answer rule.
 */

/** What the limiter keeps of a finished request (client times in monotonic ms). */
export interface Settled {
  readonly granted: number
  readonly finished: number
  /** The server's `requestTime`, if the answer carried one. */
  readonly serverTime: number | undefined
  /** The server answered (a response was read), so `finished - granted` is a round trip. */
  readonly answered: boolean
}

/** The rule's state: what stamps and round trips showed, and whether a 429 has been seen. */
export interface PermitRule {
  /**
   * From when the window of `settled`'s request counts: the latest client instant at which it
   * can have reached the server, less the least time the next request takes to get there.
   */
  readonly opens: (settled: Settled) => number
  /** Learns from a finished request. */
  readonly record: (settled: Settled, rateLimited: boolean) => void
  /** Whether stamps or round trips place arrivals now: a permit waiting by its answer may go sooner. */
  readonly trusted: () => boolean
  /** The longest round trip an answered request took; `undefined` before the first answer. */
  readonly longestRoundTrip: () => number | undefined
}

/** Samples kept to measure how much the way to the server varies. */
const recentSamples = 20

/** Samples seen before they are trusted. */
const trustAfter = 10

/** What one kind of sample (stamp minus grant, or round trip) has shown so far. */
interface Track {
  readonly add: (value: number, granted: number, firstFinished: number) => void
  /** The smallest value seen. */
  readonly least: () => number
  /** The largest value seen; `undefined` before the first. */
  readonly most: () => number | undefined
  /**
   * How far the smallest value may still fall: how far the recent values went below every older
   * one, or, before any value has left the recent ones, how much they varied.
   */
  readonly guard: () => number
  readonly seen: () => boolean
}

const track = (): Track => {
  let least = Number.POSITIVE_INFINITY
  let leastBefore = Number.POSITIVE_INFINITY
  let most: number | undefined
  const recent: Array<number> = []
  let count = 0
  let reused = false
  return {
    add: (value, granted, firstFinished) => {
      least = Math.min(least, value)
      most = Math.max(most ?? value, value)
      recent.push(value)
      if (recent.length > recentSamples) leastBefore = Math.min(leastBefore, recent.shift() as number)
      count++
      if (granted >= firstFinished) reused = true
    },
    least: () => least,
    most: () => most,
    guard: () => {
      if (recent.length === 0) return 0
      const recentLeast = Math.min(...recent)
      return leastBefore === Number.POSITIVE_INFINITY
        ? Math.max(...recent) - recentLeast
        : Math.max(0, leastBefore - recentLeast)
    },
    seen: () => reused && count >= trustAfter
  }
}

/** A rule that has seen nothing yet. */
export const make = (): PermitRule => {
  let refused = false
  let firstFinished = Number.POSITIVE_INFINITY
  const stamps = track()
  const roundTrips = track()
  const stampsTrusted = () => !refused && stamps.seen()
  const roundTripsTrusted = () => !refused && roundTrips.seen()
  return {
    opens: (settled) => {
      if (settled.serverTime !== undefined && stampsTrusted())
        return Math.min(settled.finished, settled.serverTime - stamps.least() + stamps.guard())
      if (settled.answered && roundTripsTrusted())
        return Math.min(settled.finished, settled.finished - roundTrips.least() + roundTrips.guard())
      return settled.finished
    },
    record: (settled, rateLimited) => {
      if (rateLimited) refused = true
      if (settled.serverTime !== undefined)
        stamps.add(settled.serverTime - settled.granted, settled.granted, firstFinished)
      if (settled.answered) roundTrips.add(settled.finished - settled.granted, settled.granted, firstFinished)
      firstFinished = Math.min(firstFinished, settled.finished)
    },
    trusted: () => stampsTrusted() || roundTripsTrusted(),
    longestRoundTrip: () => roundTrips.most()
  }
}
