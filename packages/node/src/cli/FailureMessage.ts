/**
 * The one line `bills` prints for a failure: the error's own message, except where that message
 * speaks the words of a library underneath (a missing variable that says only `<redacted>`, an
 * HTTP client's `Transport error`, a SQL driver's `ConnectionFailed(...)`), which are told here
 * as a sentence with what to do.
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

/** The store's failure to open, as @effect/sql-libsql and pg word it (StoreUnavailable's `reason`). */
const isStoreUnavailable = (error: unknown): error is { readonly target: string; readonly reason: string } =>
  Predicate.isTagged(error, "StoreUnavailable") &&
  Predicate.hasProperty(error, "target") &&
  Predicate.hasProperty(error, "reason") &&
  typeof error.target === "string" &&
  typeof error.reason === "string"

const storeReason = (reason: string): string | undefined => {
  const sqlite = /^ConnectionFailed\("Unable to open connection to local database .*: (\d+)"\)$/.exec(reason)
  if (sqlite !== null) {
    return sqlite[1] === "14"
      ? "SQLite cannot open the file there: its folder does not exist or cannot be written"
      : `SQLite cannot open the file (SQLite code ${sqlite[1]})`
  }
  const refused = /connect ECONNREFUSED (\S+)/.exec(reason)
  if (refused !== null) return `no PostgreSQL server answers at ${refused[1]} (the connection was refused)`
  return undefined
}

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
  if (isStoreUnavailable(error)) {
    const reason = storeReason(error.reason)
    if (reason !== undefined) return `cannot use the store ${error.target}: ${reason}`
  }
  return Predicate.hasProperty(error, "message") ? String(error.message) : String(error)
}
