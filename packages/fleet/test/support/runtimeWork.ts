/**
 * What an effect makes the Effect runtime do, counted (issue 38, section 3, fifth round): the
 * fibers forked under it, with a `Supervisor`, and the spans it makes, by name, through the
 * tracer in place. For the pass's test and bench/passWork.ts.
 */
import * as Effect from "effect/Effect"
import * as Supervisor from "effect/Supervisor"
import * as Tracer from "effect/Tracer"

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
