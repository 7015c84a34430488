/**
 * The one line `bills` prints for a failure: the error's own message, except where that message
 * speaks the words of a library underneath (a missing variable that says only `<redacted>`, a
 * SQL driver's `ConnectionFailed(...)`) or a code to look up (the history limit), which are told
 * here as a sentence with what to do. A failure to connect to the exchange says so itself
 * (`BillsTransportError`), for the fleet's status as for `bills`.
 *
 * @since 0.1.0
 */
import type { BillsApiError } from "@account-bills/core"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import { describeConfigError } from "../internal/environment.js"

/**
 * How long back the exchange's v2 interface serves history (code 40704), for the message when
 * the exchange did not say where its history starts.
 */
const servedHistoryMillis = 90 * 24 * 60 * 60 * 1000

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

/**
 * Reports a failure as `bills` does, in one line on stderr led by `bills: `, and gives `code`,
 * the exit code it ends with.
 *
 * @since 0.2.0
 * @category utils
 */
export const report = (message: string, code: number): Effect.Effect<number> =>
  Effect.sync(() => {
    process.stderr.write(`bills: ${message}\n`)
    return code
  })
