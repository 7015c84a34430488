/**
 * The spans an effect starts, kept as the current tracer makes them: a test asserts names,
 * attributes and parents through the `Span` interface, whatever tracer the runtime has.
 */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/** Runs `effect` with a tracer that keeps every span it starts in `spans`, in order. */
export const recordingSpans =
  (spans: Array<Tracer.Span>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.tracerWith((base) =>
      Effect.withTracer(
        effect,
        Tracer.make({
          context: base.context,
          span: (...args) => {
            const span = base.span(...args)
            spans.push(span)
            return span
          }
        })
      )
    )
