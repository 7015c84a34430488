/**
 * JSON text with every number literal that a JS number would not read back as written turned
 * into a string of the same characters, before `JSON.parse`. The futures interface types
 * `billId` as a Long and sends ids above 2^53 as bare numbers (`736825748291061726` read as a
 * number is `736825748291061800`, another bill); node 20's `JSON.parse` gives a reviver no access
 * to the source text, so the text is fixed first. Literals a number holds exactly as written
 * (`1700000000000`, `12.5`, `-1140`) stay numbers; the others (`736825748291061726`,
 * `836825748291194900`, `0.10`) become `"…"` with
 * exactly the digits sent, which the records' schemas read as they read the spot interface's
 * digit strings. Text inside strings, escapes included, is left alone, and so is anything that is
 * not a JSON number literal, so a body that is not JSON stays not JSON.
 */

const jsonNumber = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

const quote = 34
const backslash = 92

/**
 * Whether a JS number holds `literal` as written: an integer only up to 2^53 (beyond it the
 * shortest text of the nearest double can still read like the literal, `836825748291194900`,
 * while the number is another), a fraction when the number's text is the literal's.
 */
const exact = (literal: string): boolean => {
  const number = Number(literal)
  return /^-?\d+$/.test(literal)
    ? Number.isSafeInteger(number) && String(number) === literal
    : String(number) === literal
}

/** Whether `c` may continue a number literal. */
const numberChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45

/**
 * `text` with the number literals a JS number cannot hold exactly turned into strings; the same
 * string (no copy) when there are none.
 */
export const exactNumbers = (text: string): string => {
  const parts: Array<string> = []
  let copied = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === quote) {
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === backslash) i += 2
        else if (d === quote) {
          i++
          break
        } else i++
      }
      continue
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i
      i++
      while (i < n && numberChar(text.charCodeAt(i))) i++
      const literal = text.slice(start, i)
      if (jsonNumber.test(literal) && !exact(literal)) {
        parts.push(text.slice(copied, start), '"', literal, '"')
        copied = i
      }
      continue
    }
    i++
  }
  if (copied === 0) return text
  parts.push(text.slice(copied))
  return parts.join("")
}
