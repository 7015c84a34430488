/**
 * Exact decimal amounts. The exchange sends amounts as decimal strings; they are checked
 * against a strict grammar and become `BigDecimal`, never a JS number.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { decimalPattern } from "./internal/grammar.js"

/**
 * A plain decimal string: optional minus, digits, optionally a point and more digits.
 * Rejects `""`, `"1e-5"`, `" 1"`, `"1."`, `".5"` and `"abc"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DecimalString = Schema.String.pipe(
  Schema.pattern(decimalPattern, {
    identifier: "DecimalString",
    message: (issue) => `expected a plain decimal string like "-250.0", got ${JSON.stringify(issue.actual)}`
  })
)

/**
 * A decimal string decoded to an exact `BigDecimal`.
 *
 * @example
 * ```ts
 * import { Amount } from "@account-bills/core"
 * import { BigDecimal, Either, Schema } from "effect"
 *
 * // More digits than a JS number holds, kept exactly.
 * const amount = Schema.decodeUnknownSync(Amount.Amount)("0.10000000000000001")
 * console.log(BigDecimal.format(BigDecimal.sum(amount, amount)))
 * // 0.20000000000000002
 *
 * // Anything but a plain decimal string is refused.
 * console.log(Either.isLeft(Schema.decodeUnknownEither(Amount.Amount)("1e-5")))
 * // true
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export const Amount = Schema.compose(DecimalString, Schema.BigDecimal)
