/**
 * The flags that choose a slice of history, shared by `bills export` and `bills audit`.
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"

/**
 * `--from`, `--to` and `--coin-id`.
 *
 * @since 0.1.0
 */
export const windowFlags = {
  from: Options.text("from").pipe(
    Options.withDescription("earliest time, inclusive: ISO-8601 or epoch ms"),
    Options.optional
  ),
  to: Options.text("to").pipe(
    Options.withDescription("latest time, exclusive: ISO-8601 or epoch ms"),
    Options.optional
  ),
  coinId: Options.integer("coin-id").pipe(Options.withDescription("only this coin"), Options.optional)
}
