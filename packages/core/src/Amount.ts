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
 * @since 0.1.0
 * @category schemas
 */
export const Amount = Schema.compose(DecimalString, Schema.BigDecimal)
