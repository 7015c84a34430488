/**
 * Where exported lines go: a file or standard output. Each write is whole lines and is
 * waited for, so an interrupted export leaves only whole lines behind.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import type { Writable } from "node:stream"

/**
 * The output could not be opened or written.
 *
 * @since 0.1.0
 * @category errors
 */
export class OutputError extends Schema.TaggedError<OutputError>("@account-bills/node/OutputError")("OutputError", {
  target: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot write ${this.target}: ${this.reason}`
  }
}

/**
 * The reader of standard output closed it (`bills export ... | head -1`): the export stops
 * there, quietly and with exit code 0, as the reader has all it asked for.
 *
 * @since 0.1.0
 * @category errors
 */
export class OutputClosed extends Schema.TaggedError<OutputClosed>("@account-bills/node/OutputClosed")("OutputClosed", {
  target: Schema.String
}) {
  override get message(): string {
    return `the reader of ${this.target} closed it`
  }
}

/**
 * A sink of text.
 *
 * @since 0.1.0
 * @category models
 */
export interface LineSink {
  readonly write: (text: string) => Effect.Effect<void, OutputError | OutputClosed>
}

const writeTo = (target: string, stream: Writable) => (text: string) =>
  text === ""
    ? Effect.void
    : Effect.async<void, OutputError | OutputClosed>((resume) => {
        stream.write(text, (error) =>
          resume(
            error === undefined || error === null
              ? Effect.void
              : "code" in error && error.code === "EPIPE"
                ? Effect.fail(new OutputClosed({ target }))
                : Effect.fail(new OutputError({ target, reason: error.message }))
          )
        )
      })

/**
 * While the sink is open, a write error on stdout reaches its write callback, which fails the
 * export; without this listener the same error, emitted as an event, would crash the process.
 */
const ignoreErrorEvents = (stream: Writable): Effect.Effect<unknown, never, Scope.Scope> => {
  const listener = () => {}
  return Effect.acquireRelease(
    Effect.sync(() => stream.on("error", listener)),
    // A stream that failed may still emit its error after the export has stopped.
    () => Effect.sync(() => (stream.errored === null ? stream.off("error", listener) : stream))
  )
}

/**
 * Opens `path` for writing (truncating it), or uses standard output when `path` is undefined.
 * The file is closed, after everything written has reached it, when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = (path: string | undefined): Effect.Effect<LineSink, OutputError, Scope.Scope> => {
  if (path === undefined) {
    return Effect.as(ignoreErrorEvents(process.stdout), { write: writeTo("standard output", process.stdout) })
  }
  return Effect.acquireRelease(
    Effect.async<fs.WriteStream, OutputError>((resume) => {
      const stream = fs.createWriteStream(path, { flags: "w" })
      stream.once("open", () => resume(Effect.succeed(stream)))
      stream.once("error", (error) => resume(Effect.fail(new OutputError({ target: path, reason: error.message }))))
    }),
    (stream) =>
      Effect.async<void>((resume) => {
        stream.end(() => resume(Effect.void))
      })
  ).pipe(Effect.map((stream) => ({ write: writeTo(path, stream) })))
}
