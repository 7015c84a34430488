/**
 * `--db PATH|URL` on `export` and `audit`: read bills from a store instead of the exchange,
 * offline; `--partial` reads a partly synced store anyway. Only the flags live here, so `bills --help` loads no store code (FromStore.ts).
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

/**
 * `--partial` on `export` and `audit`: read what a store holds even when a sync of it is
 * unfinished (without it, such a read stops with exit code 4).
 *
 * @since 0.1.0
 * @category flags
 */
export const partialFlag = Options.boolean("partial").pipe(
  Options.withDescription(
    "with --db: read what the store holds even when a sync of it is unfinished (otherwise exit 4)"
  )
)
