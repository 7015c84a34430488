/**
 * The one clock runners compare: PostgreSQL's. A runner stamps the time a pass is due and the
 * cluster's message storage selects the passes due by its clock, so a runner whose own clock is
 * behind would never see passes another runner stamped (minutes late with a skew of minutes),
 * and a store lease one runner stamps is read by another. Each runner's clock is therefore its
 * own clock moved by the difference to the database's, measured on start and again every half
 * minute: the runners then agree to a few milliseconds whatever their machines say. Sleeps stay
 * the process's own (a duration does not depend on where time is read).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"

/**
 * A new measure moves the clock only when it differs by more than this: the round trip's noise
 * would otherwise step the time back and forth by a few milliseconds at each measure.
 */
const stepMillis = 100

/** The database's time minus this process's, in ms: measured at the middle of a round trip. */
const measure = (sql: SqlClient.SqlClient, local: Clock.Clock) =>
  Effect.gen(function* () {
    const before = local.unsafeCurrentTimeMillis()
    const rows = yield* sql<{ readonly now: number | string }>`
      SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::float8 AS now`
    const after = local.unsafeCurrentTimeMillis()
    return Number(rows[0]?.now ?? Number.NaN) - (before + after) / 2
  })

/** A clock that reads the database's time, kept up to date for the lifetime of the scope. */
export const make: Effect.Effect<Clock.Clock, never, SqlClient.SqlClient | Scope.Scope> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const local = yield* Effect.clock
  let offset = 0
  const update = Effect.flatMap(measure(sql, local), (measured) =>
    Effect.sync(() => {
      if (Number.isFinite(measured) && Math.abs(measured - offset) > stepMillis) offset = Math.round(measured)
    })
  )
  // A database that cannot be reached now fails the runner's first query anyway, with its reason.
  yield* Effect.ignore(update)
  yield* Effect.forkScoped(Effect.repeat(Effect.ignore(update), Schedule.spaced("30 seconds")))
  const millis = () => local.unsafeCurrentTimeMillis() + offset
  const nanos = () => local.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) => local.sleep(duration)
  } satisfies Clock.Clock
})

/**
 * `layer` built and run on the database's clock: every fiber it starts (the cluster's storage
 * polls, the passes, the reconciler) reads that clock.
 */
export const around = <ROut, E, RIn>(
  layer: Layer.Layer<ROut, E, RIn>
): Layer.Layer<ROut, E, RIn | SqlClient.SqlClient> =>
  Layer.scopedContext(Effect.flatMap(make, (clock) => Effect.withClock(Layer.build(layer), clock)))
