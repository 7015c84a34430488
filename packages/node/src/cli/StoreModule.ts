/**
 * Loading the code that needs `@account-bills/store`. The store and its database drivers are an
 * optional peer of `@account-bills/node`: an install that keeps no store carries no driver, and
 * only `sync` and `--db` ask for them, with one line that says what to install.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * What to run to install the store, with the ranges of the effect 3 line (npm's latest of the
 * `@effect` packages is another line, which npm would refuse to combine).
 *
 * @since 0.1.0
 * @category constants
 */
export const storeInstallCommand =
  'npm install @account-bills/store "@effect/sql@^0.52.1" "@effect/experimental@^0.61.1"'

/**
 * Packages whose absence means the store is not installed: the store, its drivers and its peers.
 * The bundled bin carries the store's own code and loads only these from the user's install.
 */
const storePackages: ReadonlyArray<string> = [
  "@account-bills/store",
  "@effect/sql",
  "@effect/experimental",
  "@effect/sql-libsql",
  "@effect/sql-pg",
  "@libsql/client",
  "libsql",
  "pg",
  "pg-connection-string",
  "pg-cursor"
]

/**
 * A command needs the store, which is not installed.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreNotInstalled extends Schema.TaggedError<StoreNotInstalled>("@account-bills/node/StoreNotInstalled")(
  "StoreNotInstalled",
  {
    /** The subcommand that needs it, e.g. `sync`. */
    command: Schema.String,
    /** The package that could not be found. */
    missing: Schema.String
  }
) {
  override get message(): string {
    return `${this.command} needs @account-bills/store (${this.missing} is not installed): ${storeInstallCommand}`
  }
}

/** The package named by Node's "Cannot find package 'x'" (or module) error, if it is one of the store's. */
const missingStorePackage = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  if (!("code" in error) || error.code !== "ERR_MODULE_NOT_FOUND") return undefined
  const text = "message" in error ? String(error.message) : ""
  const name = /Cannot find (?:package|module) '([^']+)'/.exec(text)?.[1]
  return storePackages.find((pkg) => name === pkg || name?.includes(`/node_modules/${pkg}/`) === true)
}

/**
 * Loads a module that needs the store, or fails with `StoreNotInstalled` when the store or one
 * of its drivers is missing; any other failure to load is a defect.
 *
 * @since 0.1.0
 * @category utils
 */
export const importStore = <A>(command: string, load: () => Promise<A>): Effect.Effect<A, StoreNotInstalled> =>
  Effect.tryPromise({ try: load, catch: (error) => error }).pipe(
    Effect.catchAll((error) => {
      const missing = missingStorePackage(error)
      return missing === undefined ? Effect.die(error) : Effect.fail(new StoreNotInstalled({ command, missing }))
    })
  )
