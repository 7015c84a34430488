/**
 * Turns the drivers' failures into the store's typed errors: a full disk is told apart, the
 * rest name the store and the driver's reason (never a password: URLs with one are refused
 * before any connection is made).
 */
import { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schedule from "effect/Schedule"
import { StoreDiskFull, StoreUnavailable } from "../StoreErrors.js"

const diskFull = /SQLITE_FULL|database or disk is full|no space left|could not extend file|disk full|ENOSPC|EFBIG/i

const describe = (error: unknown): string => {
  const causes: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error || (typeof current === "object" && "message" in current)) {
      const message = String((current as { readonly message: unknown }).message)
      if (message !== "" && !causes.includes(message)) causes.push(message)
      current = (current as { readonly cause?: unknown }).cause
    } else {
      causes.push(String(current))
      break
    }
  }
  // The innermost cause is the driver's own words; the outer ones are generic wrappers.
  return (causes.at(-1) ?? "unknown failure").split("\n")[0] ?? "unknown failure"
}

/**
 * PostgreSQL refused the connection because the database does not exist (SQLSTATE 3D000,
 * invalid_catalog_name): told apart by code, not by the server's words, which follow its locale.
 */
export const isMissingDatabase = (error: unknown): boolean => {
  let current: unknown = error
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && current.code === "3D000") return true
    current = "cause" in current ? current.cause : undefined
  }
  return false
}

/** The typed error for a driver failure on `target`. */
export const toStoreError = (target: string, error: unknown): StoreDiskFull | StoreUnavailable => {
  const reason = describe(error)
  return diskFull.test(reason) ? new StoreDiskFull({ target }) : new StoreUnavailable({ target, reason })
}

const busy = /SQLITE_BUSY|database is locked/i

/**
 * Another process writes the same SQLite file: its lock is held for one page's commit at most,
 * so the statement (a transaction or a single statement, whole or not at all) is tried again.
 */
const whileBusy = Schedule.exponential(Duration.millis(10), 1.5).pipe(Schedule.intersect(Schedule.recurs(15)))

/**
 * Maps an effect's SQL failures, rows that do not decode (a store edited by hand or damaged),
 * and its defects (the Migrator dies on a failed migration), to store errors.
 */
export const mapSqlFailure =
  (target: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E | SqlError | ParseResult.ParseError, R>
  ): Effect.Effect<A, Exclude<Exclude<E, SqlError>, ParseResult.ParseError> | StoreDiskFull | StoreUnavailable, R> =>
    effect.pipe(
      Effect.retry({
        schedule: whileBusy,
        while: (error) => error instanceof SqlError && busy.test(describe(error))
      }),
      Effect.catchIf(
        (error): error is SqlError => error instanceof SqlError,
        (error) => Effect.fail(toStoreError(target, error))
      ),
      Effect.catchIf(ParseResult.isParseError, (error) =>
        Effect.fail(new StoreUnavailable({ target, reason: `a stored row does not decode: ${describe(error)}` }))
      ),
      Effect.catchAllDefect((defect) =>
        Cause.isInterruptedException(defect) ? Effect.die(defect) : Effect.fail(toStoreError(target, defect))
      )
    )
