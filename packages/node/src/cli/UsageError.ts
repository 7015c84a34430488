/**
 * A flag or value the command line cannot use; the process exits with code 2 and nothing is sent.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category errors
 */
export class UsageError extends Schema.TaggedError<UsageError>("@account-bills/node/UsageError")("UsageError", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}
