/**
 * How a schema's complaint is told to a person: the first issue of a parse error, with the
 * path to the field that broke it. Input validation and response decoding both use it.
 */
import * as ParseResult from "effect/ParseResult"

/** Renders the first issue of a parse error as a path like `items[3].deltaAmount`. */
export const firstIssue = (error: ParseResult.ParseError): { readonly path: string; readonly message: string } => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (issue === undefined) return { path: "", message: error.message }
  const path = issue.path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("")
  return { path, message: issue.message }
}
