/**
 * A key the futures interface refuses: it has no futures (contract) permission, or the account
 * has no futures account. The funding and spot interfaces may still take the same key, so
 * `--account all` says so in one line and reads the other two; `--account contract` fails with
 * this error, which says what to do.
 *
 * @since 0.2.0
 */
import { BillsApi, BillsApiError } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

/**
 * The futures interface refused the key; the process exits with 1, as for the exchange's other
 * refusals.
 *
 * @since 0.2.0
 * @category errors
 */
export class FuturesRefused extends Schema.TaggedError<FuturesRefused>("@account-bills/node/FuturesRefused")(
  "FuturesRefused",
  {
    /** The exchange's code, as it sent it. */
    code: Schema.String,
    /** `Permission` or `Authentication`. */
    reason: Schema.String,
    status: Schema.Number,
    /** The exchange's own words. */
    msg: Schema.String
  }
) {
  /** Why, in the exchange's words and code. */
  get exchangeWords(): string {
    return `${this.reason}, code ${this.code}, HTTP ${this.status}: ${this.msg}`
  }

  override get message(): string {
    return `contract: the exchange refuses this API key on the futures interface (${this.exchangeWords}): the key has no futures (contract) read permission, or the account has no futures account; give the key futures read permission on the exchange (or use a key that has it), or read the other accounts with --account funding or --account spot`
  }
}

/**
 * The refusal in `error`, when it is the futures interface refusing the key; anything else
 * (a bad signature on every interface, a network failure) is not one.
 *
 * @since 0.2.0
 * @category utils
 */
export const futuresRefusal = (error: unknown): FuturesRefused | undefined =>
  error instanceof BillsApiError &&
  error.operation === "contractBills" &&
  (error.reason === "Permission" || error.reason === "Authentication")
    ? new FuturesRefused({ code: error.code, reason: error.reason, status: error.status, msg: error.msg })
    : undefined

/**
 * The line `--account all` prints when the futures interface refuses the key, before it goes on
 * with the other two accounts.
 *
 * @since 0.2.0
 * @category utils
 */
export const skippedLine = (refused: FuturesRefused): string =>
  `contract: skipped, the exchange refuses this API key on the futures interface (${refused.exchangeWords}); funding and spot are read on`

/**
 * `effect` with the futures interface's refusal of the key failing as `FuturesRefused`.
 *
 * @since 0.2.0
 * @category combinators
 */
export const refusalAsFuturesRefused = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | FuturesRefused, R> =>
  Effect.catchAll(effect, (error) => Effect.fail(futuresRefusal(error) ?? error))

/**
 * The `BillsApi` in context, except that a contract stream the futures interface refuses ends
 * empty after `onRefused` (once per walk): for a read of all accounts that goes on with the other
 * two, as `bills audit --account all` does.
 *
 * @since 0.2.0
 * @category layers
 */
export const skipRefusedContract = (
  onRefused: (refused: FuturesRefused) => Effect.Effect<void>
): Layer.Layer<BillsApi, never, BillsApi> =>
  Layer.effect(
    BillsApi,
    Effect.map(BillsApi, (api) => ({
      ...api,
      streamContractBills: (query) =>
        Stream.catchAll(api.streamContractBills(query), (error) => {
          const refused = futuresRefusal(error)
          return refused === undefined ? Stream.fail(error) : Stream.drain(Stream.fromEffect(onRefused(refused)))
        })
    }))
  )
