/**
 * When the current fiber's last attempt left the limiter: set by the attempt as it is granted
 * its permit, read by the spot pool, which sizes its walks by the round trip (Little's law) and
 * must not count the wait for a permit as one. Counted from the moment a page was asked for, a
 * limiter already at its limit (a sync right after another, on one client) made every fetch
 * look 100+ ms long next to the exchange, and the pool cut an incremental pass into walks that
 * each ended half-full.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"

/** The clock's milliseconds when the fiber's last attempt got its permit; `undefined` before any. */
export const lastSentAt: FiberRef.FiberRef<number | undefined> = FiberRef.unsafeMake<number | undefined>(undefined)

/**
 * Runs `effect` (one page: a request and whatever it waits for) and tells how it ended, when its
 * last attempt left the limiter (`sent`; when it was asked for, if no attempt got a permit) and
 * when it came back (`now`): its round trip, without the wait for a permit.
 */
export const timedExit = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<{ readonly exit: Exit.Exit<A, E>; readonly sent: number; readonly now: number }, never, R> =>
  Effect.gen(function* () {
    const asked = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(effect)
    const now = yield* Clock.currentTimeMillis
    const sentAt = yield* FiberRef.get(lastSentAt)
    return { exit, sent: Math.max(asked, sentAt ?? asked), now }
  })
