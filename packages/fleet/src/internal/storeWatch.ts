/**
 * A runner's look at the store's schema version while it runs (issue 52, section 3). A fleet
 * upgrades one runner at a time: the first runner of a release with a new migration migrates the
 * store while runners of the last release go on beside it. A runner that finds the store newer
 * than it knows stops its work at once, as a runner that stops does (no grant is given, no pass
 * begins: `stopping` is done), says so in one line that names both versions, and completes
 * `tooNew`, for the process to close the runner: its accounts move to the runners that know the
 * store. Between the migration and the next look (`every`), it may still write: a migration is
 * made so that the last release's writes stay right for that long (`migrations.ts`).
 */
import { StoreVersion, type StoreTooNew } from "@account-bills/store"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"

/**
 * How often a runner reads the store's version: one statement a runner, whatever its accounts,
 * as often as the cluster refreshes its shard assignments.
 */
export const every = Duration.seconds(2)

/**
 * Watches the store `target` for the lifetime of the scope; `runner` names this runner in the line.
 * A database that does not answer is the passes' to report: the look is tried again next round.
 */
export const watch = (
  target: string,
  runner: string,
  stopping: Deferred.Deferred<void>,
  tooNew: Deferred.Deferred<StoreTooNew>
): Effect.Effect<void, never, SqlClient.SqlClient | Scope.Scope> => {
  const look = StoreVersion.check(target).pipe(
    Effect.as(false),
    Effect.catchTag("StoreTooNew", (error) =>
      Effect.zipRight(
        Effect.zipRight(
          Deferred.succeed(stopping, undefined),
          Effect.logError(
            `runner at ${runner} stops: the store has schema version ${error.version}, newer than the ${error.supported} this runner knows (a runner of a later release migrated it); it hands its accounts over to the runners of that release`
          )
        ),
        Effect.as(Deferred.succeed(tooNew, error), true)
      )
    ),
    Effect.catchAll(() => Effect.succeed(false))
  )
  return Effect.asVoid(
    Effect.forkScoped(Effect.repeat(look, { until: (found) => found, schedule: Schedule.spaced(every) }))
  )
}
