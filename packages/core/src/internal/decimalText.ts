/**
 * Decimals written out in full: never exponent notation (unlike `BigDecimal.format`), so a
 * file keeps every digit a tool must read back exactly.
 */
import * as BigDecimal from "effect/BigDecimal"

/** `value` with exactly `decimals` places. */
export const fixed = (value: BigDecimal.BigDecimal, decimals: number): string => {
  const scaled = BigDecimal.scale(value, Math.max(decimals, 0))
  const negative = scaled.value < 0n
  const digits = (negative ? -scaled.value : scaled.value).toString().padStart(scaled.scale + 1, "0")
  const integer = digits.slice(0, digits.length - scaled.scale)
  const fraction = digits.slice(digits.length - scaled.scale)
  return (negative ? "-" : "") + integer + (fraction === "" ? "" : `.${fraction}`)
}

/** `value` with no trailing zeros ("1.50" as "1.5", "2.0" as "2"). */
export const plain = (value: BigDecimal.BigDecimal): string => {
  const normalized = BigDecimal.normalize(value)
  return fixed(normalized, Math.max(normalized.scale, 0))
}

/** A JSON number literal in exponent notation, with an exponent small enough to write out. */
const exponentLiteral = /^-?(?:0|[1-9]\d*)(?:\.\d+)?[eE][+-]?\d{1,3}$/

/**
 * The JSON number literal `literal` written out in full when it has an exponent (`1E-8` as
 * `0.00000001`, `1.5e+2` as `150`), the same value exactly; `undefined` for any other text. An
 * exponent above 999 is left alone (its digits would be too many to be an amount).
 */
export const withoutExponent = (literal: string): string | undefined => {
  if (!exponentLiteral.test(literal)) return undefined
  const value = BigDecimal.fromString(literal)
  return value._tag === "Some" ? fixed(value.value, Math.max(value.value.scale, 0)) : undefined
}
