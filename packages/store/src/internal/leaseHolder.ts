/**
 * A sync's hold on the lease of one account and kind, for the life of a scope: taken (waiting
 * for another holder up to a limit), renewed while the scope is open, and let go however the
 * scope closes. A killed holder's lease simply runs out.
 */
import { ClockTimer } from "@account-bills/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { type BillKind, BillsStore, type StoreFailure, type SyncState } from "../BillsStore.js"
import { SyncBusy } from "../StoreErrors.js"

/** Whose lease, for how long, and how long to wait for another holder. */
export interface LeaseTerms {
  readonly account: string
  readonly kind: BillKind
  readonly owner: string
  readonly leaseMillis: number
  readonly waitMillis: number
}

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/**
 * Takes the lease, polling while another holder has it; `SyncBusy` once `waitMillis` have passed.
 * The sync state as the taking statement found it.
 */
const acquire = (terms: LeaseTerms) =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    const started = yield* now
    while (true) {
      const lease = yield* store.acquireLease(terms.account, terms.kind, terms.owner, terms.leaseMillis)
      if (lease.acquired) return lease.state
      const at = yield* now
      if (at - started >= terms.waitMillis) {
        return yield* new SyncBusy({ account: terms.account, kind: terms.kind, until: lease.until })
      }
      yield* Effect.sleep(Duration.millis(Math.min(Math.max(lease.until - at, 1), 250, terms.waitMillis)))
    }
  })

/** A lease held: the sync state it was taken with, and how to say the lease went with a page. */
export interface Held {
  readonly state: SyncState
  /**
   * Says that a committed page let the lease go (`PageCommit.release`): the scope's close then
   * sends no release of its own, one statement fewer for every walk that finishes.
   */
  readonly letGo: Effect.Effect<void>
}

/**
 * Holds the lease until the scope closes; renewed every third of its length, so that a slow
 * page does not let it run out under the walk. The renewal only renews: a lease let go with the
 * walk's last page stays free.
 *
 * Each committed page renews the lease too, and most walks (a fleet's steady pass: one page)
 * end long before a third of it: so no fiber waits for the first renewal. A timer does
 * (`ClockTimer.arm`: the event loop's on the real clock), and the renewing fiber is forked only
 * when it fires, from the holder's runtime; the scope's close disarms the one and interrupts the
 * other.
 */
export const hold = (terms: LeaseTerms): Effect.Effect<Held, StoreFailure | SyncBusy, BillsStore | Scope.Scope> =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    let released = false
    const state = yield* Effect.acquireRelease(acquire(terms), () =>
      released ? Effect.void : Effect.ignore(store.releaseLease(terms.account, terms.kind, terms.owner))
    )
    const third = Duration.millis(Math.max(terms.leaseMillis / 3, 1))
    const renew = Effect.ignore(store.renewLease(terms.account, terms.kind, terms.owner, terms.leaseMillis))
    const runtime = yield* Effect.runtime<BillsStore>()
    // Once the scope closes, a timer that fires late (a fiber's stops asynchronously) forks nothing.
    let closed = false
    let renewing: Fiber.RuntimeFiber<never> | undefined
    const disarm = yield* ClockTimer.arm(third, () => {
      if (!closed) renewing = Runtime.runFork(runtime)(Effect.forever(Effect.zipRight(renew, Effect.sleep(third))))
    })
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        disarm()
        return renewing === undefined ? Effect.void : Fiber.interrupt(renewing)
      })
    )
    return {
      state,
      letGo: Effect.sync(() => {
        released = true
      })
    }
  })
