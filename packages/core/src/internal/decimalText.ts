/**
 * Decimals written out in full: `BigDecimal.format` switches to exponent notation at 16 places,
 * which none of the file formats we write accept.
 */
import * as BigDecimal from "effect/BigDecimal"

/**
 * Writes a decimal with exactly `decimals` places (never exponent notation).
 */
export const formatFixed = (value: BigDecimal.BigDecimal, decimals: number): string => {
  const scaled = BigDecimal.scale(value, Math.max(decimals, 0))
  const negative = scaled.value < 0n
  const digits = (negative ? -scaled.value : scaled.value).toString().padStart(scaled.scale + 1, "0")
  const integer = digits.slice(0, digits.length - scaled.scale)
  const fraction = digits.slice(digits.length - scaled.scale)
  return (negative ? "-" : "") + integer + (fraction === "" ? "" : `.${fraction}`)
}

/**
 * Writes a decimal at its own scale (trailing zeros kept, never exponent notation).
 */
export const formatPlain = (value: BigDecimal.BigDecimal): string => formatFixed(value, value.scale)
