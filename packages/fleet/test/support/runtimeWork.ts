/**
 * What an effect makes the Effect runtime do, counted (issue 38, section 3, fifth round): the
 * fibers forked under it, with a `Supervisor`, and the spans it makes, by name, through the
 * tracer in place. For the pass's test and bench/passWork.ts.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Supervisor from "effect/Supervisor"
import * as Tracer from "effect/Tracer"
import { FleetMetrics } from "../../src/index.js"

/** Counts the fibers forked under it. */
export class Forks extends Supervisor.AbstractSupervisor<number> {
  count = 0
  get value() {
    return Effect.sync(() => this.count)
  }
  override onStart() {
    this.count++
  }
}

/** Runs `effect` with `forks` counting its fibers and every span it makes passed to `onSpan`. */
export const counted = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  forks: Forks,
  onSpan: (span: Tracer.Span) => void
): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) =>
    Effect.withTracer(
      Effect.supervised(effect, forks),
      Tracer.make({
        span: (...args) => {
          const span = tracer.span(...args)
          onSpan(span)
          return span
        },
        context: tracer.context
      })
    )
  )

/** The sum of a counter of `FleetMetrics` over the values of its tag `key`, in this process. */
export const counterSum = (counter: Metric.Metric.Counter<number>, key: string, values: ReadonlyArray<string>) =>
  Effect.reduce(values, 0, (sum, value) =>
    Effect.map(Metric.value(Metric.tagged(counter, key, value)), (state) => sum + state.count)
  )

/** The passes this process's runners have ended so far, whatever their outcome. */
export const passesEnded = counterSum(FleetMetrics.passes, "outcome", ["done", "more", "failed"])
