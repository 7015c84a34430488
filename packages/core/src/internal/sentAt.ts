/**
 * When the current fiber's last attempt left the limiter: set by the attempt as it is granted
 * its permit, read by the spot pool, which sizes its walks by the round trip (Little's law) and
 * must not count the wait for a permit as one. Counted from the moment a page was asked for, a
 * limiter already at its limit (a sync right after another, on one client) made every fetch
 * look 100+ ms long next to the exchange, and the pool cut an incremental pass into walks that
 * each ended half-full.
 */
import * as FiberRef from "effect/FiberRef"

/** The clock's milliseconds when the fiber's last attempt got its permit; `undefined` before any. */
export const lastSentAt: FiberRef.FiberRef<number | undefined> = FiberRef.unsafeMake<number | undefined>(undefined)
