/**
 * The one line `bills` prints for a failure: the error's own message, except where that message
 * speaks the library's internal words (a missing variable that says only `<redacted>`, an
 * HTTP client's `Transport error`), which are told here as a sentence with what to do.
 *
 * @since 0.1.0
 */
import type { BillsApiError, BillsTransportError } from "@account-bills/core"
import * as ConfigError from "effect/ConfigError"
import * as Predicate from "effect/Predicate"
import { describeConfigError } from "../internal/environment.js"

/**
 * How long back the exchange's v2 interface serves history (code 40704), for the message when
 * the exchange did not say where its history starts.
 */
const servedHistoryMillis = 90 * 24 * 60 * 60 * 1000

const isTransportError = (error: unknown): error is BillsTransportError =>
  Predicate.isTagged(error, "BillsTransportError")

const isApiError = (error: unknown): error is BillsApiError => Predicate.isTagged(error, "BillsApiError")

/**
 * The line for `error`, without the `bills:` prefix; `now` dates the exchange's horizon.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeFailure = (error: unknown, now: number): string => {
  if (ConfigError.isConfigError(error)) {
    return `${describeConfigError(error)} (bills --help lists the WEEX_* variables)`
  }
  if (isTransportError(error) && error.reason === "Transport") {
    // `description` is the HTTP client's, e.g. "Transport error (POST http://host/api/v2/...)".
    const url = /\((?:GET|POST) ([^)\s]+)\)/.exec(error.description)?.[1]
    const origin = url === undefined || !URL.canParse(url) ? "" : ` at ${new URL(url).origin}`
    return `${error.operation}: could not connect to the exchange${origin}: the connection was refused or dropped; check WEEX_BASE_URL and the network`
  }
  if (isApiError(error) && error.reason === "HistoryLimit") {
    const since = new Date(now - servedHistoryMillis).toISOString()
    return `${error.operation}: the exchange serves no bills that old (code ${error.code}; it serves about the last three months, from ${since} on): use a later --from`
  }
  return Predicate.hasProperty(error, "message") ? String(error.message) : String(error)
}
