/**
 * The flags that choose a slice of history, shared by `bills export` and `bills audit`, and
 * their one check.
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { parseTime } from "./TimeFlag.js"
import { UsageError } from "./UsageError.js"

/**
 * `--from`, `--to` and `--coin-id`.
 *
 * @since 0.1.0
 * @category flags
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

/**
 * The window flags as parsed by the command line.
 *
 * @since 0.1.0
 * @category flags
 */
export interface WindowFlags {
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
  readonly coinId: Option.Option<number>
}

/**
 * A checked window: epoch milliseconds and a positive coin id, absent fields left out.
 *
 * @since 0.1.0
 * @category flags
 */
export interface Window {
  readonly from?: number
  readonly to?: number
  readonly coinId?: number
}

const time = (flag: string, value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => Effect.mapError(parseTime(flag, text), (reason) => new UsageError({ reason }))
  })

/**
 * Checks the window flags together; the first problem is reported in one line.
 *
 * @since 0.1.0
 * @category flags
 */
export const validateWindow = (flags: WindowFlags): Effect.Effect<Window, UsageError> =>
  Effect.gen(function* () {
    const from = yield* time("from", flags.from)
    const to = yield* time("to", flags.to)
    if (from !== undefined && to !== undefined && from > to) {
      return yield* new UsageError({ reason: `--from (${Option.getOrElse(flags.from, () => "")}) is after --to` })
    }
    if (Option.isSome(flags.coinId) && flags.coinId.value < 1) {
      return yield* new UsageError({ reason: `--coin-id must be a positive integer, got ${flags.coinId.value}` })
    }
    return {
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...Option.match(flags.coinId, { onNone: () => ({}), onSome: (coinId) => ({ coinId }) })
    }
  })
