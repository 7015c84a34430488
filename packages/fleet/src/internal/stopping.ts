/**
 * A runner that stops sends no more requests. Its passes go on until the cluster interrupts them
 * (`entityTerminationTimeout` after its shutdown began), and each request a pass sent in that
 * time was a request whose answer is thrown away. From the moment the cluster shuts down, a pass
 * that waits for a grant stops waiting and asks for none again; a request already on its way
 * lands, and its page is committed, while the cluster waits.
 */
import * as Sharding from "@effect/cluster/Sharding"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { AddressBudgetShape } from "../AddressBudget.js"

/** How often the cluster's shutdown is looked for: it has no event to wait on. */
const pollEvery = Duration.millis(50)

/**
 * Done once this runner's cluster has begun to shut down (looked for for the lifetime of the scope).
 */
export const signal: Effect.Effect<Deferred.Deferred<void>, never, Sharding.Sharding | Scope.Scope> = Effect.gen(
  function* () {
    const sharding = yield* Sharding.Sharding
    const stopping = yield* Deferred.make<void>()
    yield* Effect.forkScoped(
      Effect.repeat(sharding.isShutdown, { until: (down) => down, schedule: Schedule.spaced(pollEvery) }).pipe(
        Effect.zipRight(Deferred.succeed(stopping, undefined))
      )
    )
    return stopping
  }
)

/**
 * `withGrant`, giving no grant once `stopping` completes: a request that has not been sent by
 * then never is, and its pass waits there for the cluster to end it (a pass that ended itself
 * would have its message taken as processed, and the next owner would not resume it).
 */
export const withGrantUntil =
  (stopping: Deferred.Deferred<void>, withGrant: AddressBudgetShape["withGrant"]): AddressBudgetShape["withGrant"] =>
  (operation, address) =>
  <A, E, R>(request: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Deferred.isDone(stopping), (stopped) => {
      if (stopped) return Effect.never
      let sending = false
      const sent = Effect.suspend(() => {
        sending = true
        return request
      })
      return Effect.raceFirst(
        Effect.asSome(withGrant(operation, address)(sent)),
        Effect.zipRight(
          Deferred.await(stopping),
          Effect.suspend(() => (sending ? Effect.never : Effect.succeed(Option.none<A>())))
        )
      ).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.never, onSome: Effect.succeed })))
    })
