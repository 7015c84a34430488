/**
 * Parses the TIME values of `--from` and `--to`: ISO-8601 or epoch milliseconds.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"

const isoPattern = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * Numbers from here up to `secondsEnd` read as milliseconds fall in 1970-01-12 .. 1973-03-03,
 * long before any exchange kept bills, while read as seconds they are 2001 .. 5138: such a
 * value is epoch seconds given by mistake, and reading it as milliseconds would silently
 * mean "everything".
 */
const secondsStart = 1_000_000_000
const secondsEnd = 100_000_000_000

/**
 * Epoch milliseconds of a TIME value, or the reason it is not one. A date or time without a
 * zone is read as UTC, so the same command means the same range on every machine.
 *
 * @since 0.1.0
 * @category utils
 */
export const parseTime = (flag: string, input: string): Either.Either<number, string> => {
  const text = input.trim()
  if (/^\d{1,15}$/.test(text)) {
    const value = Number(text)
    if (value >= secondsStart && value < secondsEnd) {
      return Either.left(
        `--${flag} ${text} looks like epoch seconds (${new Date(value * 1000).toISOString()}); TIME takes epoch milliseconds (${text}000) or ISO-8601`
      )
    }
    return Either.right(value)
  }
  const match = isoPattern.exec(text)
  if (match === null) {
    return Either.left(
      `--${flag} ${JSON.stringify(input)} is not a time: use ISO-8601 (2024-05-01T00:00:00Z) or epoch milliseconds`
    )
  }
  const hasZone = match[4] !== undefined
  const withTime = match[1] === undefined ? `${text}T00:00:00` : text.replace(" ", "T")
  const millis = Date.parse(hasZone ? withTime : `${withTime}Z`)
  return Number.isNaN(millis)
    ? Either.left(`--${flag} ${JSON.stringify(input)} is not a valid date`)
    : Either.right(millis)
}
