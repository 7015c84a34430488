/**
 * The limiter of one account's key on a runner: the exchange's window per key and operation,
 * each slot held until a window after its request's answer was read (`arrival: "answer"`), as
 * the address budget holds its grants. The client's default places a request's arrival by the
 * server's stamp (or the round trip) against the fastest way there seen so far; a runner's first
 * syncs load its machine, so every way it sees then is slow, and a request sent once the load
 * has gone can reach the exchange faster than any seen by more than the margin: an eleventh
 * arrival in a second (a 429 in the pass CPU bench, 1 request in 900 to 2,600, seen in two of
 * five runs). The answer rule assumes nothing. Where an address budget is set it costs nothing
 * (a grant there already waits a window after its request finished); without one, a round trip
 * per window of each key.
 */
import { BillsRateLimiter } from "@account-bills/core"

/** The per-key limiter of an account: `maxRps` requests a second per operation, the answer rule. */
export const make = (maxRps: number) => BillsRateLimiter.make({ limit: maxRps, arrival: "answer" })
