/**
 * `--db PATH|URL` on `export` and `audit`: read bills from a store instead of the exchange,
 * offline. Only the flag lives here, so `bills --help` loads no store code (FromStore.ts).
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"

/**
 * The optional `--db` flag of `export` and `audit`.
 *
 * @since 0.1.0
 * @category flags
 */
export const dbFlag = Options.text("db").pipe(
  Options.withDescription("read from this store (SQLite file or postgres:// URL) instead of the exchange, offline"),
  Options.optional
)
