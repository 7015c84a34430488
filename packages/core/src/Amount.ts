/**
 * Exact decimal amounts. The exchange sends amounts as decimal strings; they are checked
 * against a strict grammar and become `BigDecimal`, never a JS number.
 *
 * @since 0.1.0
 */
import type * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"
import * as DecimalText from "./internal/decimalText.js"
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

/**
 * `value` written with exactly `decimals` places, never in exponent notation (unlike
 * `BigDecimal.format`): what a file a tool reads back exactly must hold.
 *
 * @example
 * ```ts
 * import { Amount } from "@account-bills/core"
 * import { BigDecimal } from "effect"
 *
 * console.log(Amount.formatFixed(BigDecimal.unsafeFromString("0.00000001"), 10))
 * // 0.0000000100
 * ```
 *
 * @since 0.2.0
 * @category formatting
 */
export const formatFixed: (value: BigDecimal.BigDecimal, decimals: number) => string = DecimalText.fixed

/**
 * `value` written in full with no trailing zeros ("1.50" as "1.5", "2.0" as "2"), never in
 * exponent notation.
 *
 * @example
 * ```ts
 * import { Amount } from "@account-bills/core"
 * import { BigDecimal } from "effect"
 *
 * console.log(Amount.formatPlain(BigDecimal.unsafeFromString("1e-8")))
 * // 0.00000001
 * ```
 *
 * @since 0.2.0
 * @category formatting
 */
export const formatPlain: (value: BigDecimal.BigDecimal) => string = DecimalText.plain
