/**
 * Where exported lines go: a file or standard output. Each write is whole lines and is
 * waited for, so an interrupted export leaves only whole lines behind.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Data from "effect/Data"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import type { Writable } from "node:stream"

/**
 * The output could not be opened or written.
 *
 * @since 0.1.0
 */
export class OutputError extends Data.TaggedError("OutputError")<{ readonly target: string; readonly reason: string }> {
  override get message(): string {
    return `cannot write ${this.target}: ${this.reason}`
  }
}

/**
 * A sink of text.
 *
 * @since 0.1.0
 */
export interface LineSink {
  readonly write: (text: string) => Effect.Effect<void, OutputError>
}

const writeTo = (target: string, stream: Writable) => (text: string) =>
  text === ""
    ? Effect.void
    : Effect.async<void, OutputError>((resume) => {
        stream.write(text, (error) =>
          resume(error ? Effect.fail(new OutputError({ target, reason: error.message })) : Effect.void)
        )
      })

/**
 * Opens `path` for writing (truncating it), or uses standard output when `path` is undefined.
 * The file is closed, after everything written has reached it, when the scope closes.
 *
 * @since 0.1.0
 */
export const open = (path: string | undefined): Effect.Effect<LineSink, OutputError, Scope.Scope> => {
  if (path === undefined) return Effect.succeed({ write: writeTo("standard output", process.stdout) })
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
