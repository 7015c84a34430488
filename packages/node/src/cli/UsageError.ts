/**
 * A flag or value the command line cannot use; the process exits with code 2 and nothing is sent.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * @since 0.1.0
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}
