/**
 * The flags that choose a slice of history, shared by `bills export` and `bills audit`, and
 * the one check that needs two of them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Flags from "./Flags.js"
import { UsageError } from "./UsageError.js"

/**
 * `--from`, `--to` and `--coin-id`.
 *
 * @since 0.1.0
 * @category flags
 */
export const windowFlags = { from: Flags.from, to: Flags.to, coinId: Flags.coinId }

/**
 * The window flags as parsed (and each checked) by the command line.
 *
 * @since 0.1.0
 * @category flags
 */
export interface WindowFlags {
  readonly from: Option.Option<number>
  readonly to: Option.Option<number>
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

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * Checks the window flags together: `--from` must not be after `--to`.
 *
 * @since 0.1.0
 * @category flags
 */
export const validateWindow = (flags: WindowFlags): Effect.Effect<Window, UsageError> =>
  Effect.gen(function* () {
    if (Option.isSome(flags.from) && Option.isSome(flags.to) && flags.from.value > flags.to.value) {
      return yield* new UsageError({
        reason: `--from (${iso(flags.from.value)}) is after --to (${iso(flags.to.value)})`
      })
    }
    return {
      ...Option.match(flags.from, { onNone: () => ({}), onSome: (from) => ({ from }) }),
      ...Option.match(flags.to, { onNone: () => ({}), onSome: (to) => ({ to }) }),
      ...Option.match(flags.coinId, { onNone: () => ({}), onSome: (coinId) => ({ coinId }) })
    }
  })
