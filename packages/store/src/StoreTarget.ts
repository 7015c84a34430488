/**
 * Where a store lives, from the `PATH|URL` a user gives: a SQLite file, or a PostgreSQL
 * database by `postgres://` / `postgresql://` URL. URLs with a password are refused.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { StorePasswordInUrl, StoreUnavailable } from "./StoreErrors.js"

/**
 * A parsed store location.
 *
 * @since 0.1.0
 * @category models
 */
export type StoreTarget =
  | { readonly _tag: "Sqlite"; readonly path: string; readonly display: string }
  | { readonly _tag: "Postgres"; readonly url: string; readonly display: string }

/**
 * The default store: `bills.sqlite` in the current directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPath = "bills.sqlite"

const postgresScheme = /^postgres(?:ql)?:\/\//i

/**
 * Reads a `PATH|URL`. A URL with a password fails with `StorePasswordInUrl`, whose message
 * shows the URL with the password cut out.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (text: string): Effect.Effect<StoreTarget, StorePasswordInUrl | StoreUnavailable> => {
  if (!postgresScheme.test(text)) {
    if (text.trim() === "") return Effect.fail(new StoreUnavailable({ target: "''", reason: "the path is empty" }))
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
      return Effect.fail(
        new StoreUnavailable({
          target: text.replace(/\/\/[^@/]*@/, "//***@"),
          reason: "only postgres:// URLs and SQLite file paths are supported"
        })
      )
    }
    return Effect.succeed({ _tag: "Sqlite", path: text, display: text })
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Effect.fail(
      new StoreUnavailable({ target: text.replace(/\/\/[^@/]*@/, "//***@"), reason: "not a valid URL" })
    )
  }
  if (url.password !== "") {
    url.password = ""
    return Effect.fail(new StorePasswordInUrl({ target: url.toString() }))
  }
  return Effect.succeed({ _tag: "Postgres", url: text, display: url.toString() })
}
