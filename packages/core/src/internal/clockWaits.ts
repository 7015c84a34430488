/**
 * The client's waits on the clock outside a rate-limit permit: the pause before a retry, and the
 * measurement of the exchange's clock (a request on the public time endpoint, which takes no
 * permit). Outside the testing kit they run as they are. The kit's layers put a guard on each,
 * as on every permit, so that a test whose `TestClock` nobody moves fails with a message rather
 * than hang: the waits of the retry loop are the client's own, so the kit can reach them only
 * through this reference.
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { BillsError } from "../Errors.js"

/** What a wait is for, so that a guard can say so. */
export type ClockWait =
  | {
      readonly _tag: "RetryPause"
      /** The retry the pause comes before (1 for the call's second attempt). */
      readonly retry: number
      readonly delay: Duration.Duration
      /** The transient failure that is retried. */
      readonly error: BillsError
    }
  | { readonly _tag: "ClockSync" }

/** Wraps one wait; the identity outside the testing kit. */
export interface ClockWaitsShape {
  readonly around: (wait: ClockWait) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const unguarded: ClockWaitsShape = { around: () => (effect) => effect }

/**
 * A reference with a default, so that the client's requirements stay the same; the kit provides
 * its own.
 */
export class ClockWaits extends Context.Reference<ClockWaits>()("@account-bills/core/internal/ClockWaits", {
  defaultValue: (): ClockWaitsShape => unguarded
}) {}
