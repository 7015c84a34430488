/**
 * The fleet's accounts: one row per label in the fleet's PostgreSQL database, its credentials
 * sealed by {@link FleetCipher}. Rows also say which runner passed the account last and what
 * each kind's last pass failed with, for `status`.
 *
 * @since 0.1.0
 */
import type { BillKind, Credentials } from "@account-bills/core"
import { StoreAccount } from "@account-bills/store"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FleetCipher } from "./FleetCipher.js"
import {
  FleetAccountUnknown,
  type FleetCredentialsUnreadable,
  FleetKeyInvalid,
  FleetKeyMismatch,
  FleetLabelInvalid,
  FleetNotFound,
  FleetRekeyRefused,
  FleetUnavailable,
  isLabel
} from "./FleetErrors.js"

/**
 * An account as the fleet lists it; no credential in it.
 *
 * @since 0.1.0
 * @category models
 */
export interface FleetAccount {
  readonly label: string
  readonly addedAt: number
  /** The runner that began the latest pass, and when (epoch ms). */
  readonly owner: string | undefined
  readonly ownerSeen: number | undefined
  /** What the latest pass of each kind failed with; undefined when it succeeded. */
  readonly errors: { readonly [K in BillKind]: string | undefined }
  /** Since when (epoch ms) each kind's passes have failed with that error; undefined when it succeeded. */
  readonly errorsSince: { readonly [K in BillKind]: number | undefined }
  /**
   * When the account's next pass is due (epoch ms), as its runner last wrote it: to within the
   * length of the pass before it (a steady pass writes it as it begins). Undefined before the
   * account's first pass.
   *
   * @since 0.2.0
   */
  readonly nextPass?: number | undefined
}

/**
 * What the fleet's account table offers.
 *
 * @since 0.1.0
 * @category models
 */
export interface FleetAccountsShape {
  /** The database, as messages show it (no password). */
  readonly target: string
  /**
   * Adds the account, or replaces the credentials of the label; says which. A label that breaks
   * `labelRule` fails with `FleetLabelInvalid`, a key that opens none of the other accounts'
   * credentials with `FleetKeyMismatch`; then nothing is written.
   */
  readonly add: (
    label: string,
    credentials: Credentials
  ) => Effect.Effect<"added" | "replaced", FleetUnavailable | FleetKeyInvalid | FleetKeyMismatch | FleetLabelInvalid>
  /**
   * Seals every account's credentials under the cipher's key, in one transaction: all of them, or
   * none when one does not open under either key (`FleetRekeyRefused`). Answers how many.
   */
  readonly rekey: Effect.Effect<number, FleetUnavailable | FleetKeyInvalid | FleetRekeyRefused>
  /** Removes the account; its bills stay in the store. False when there was none. */
  readonly remove: (label: string) => Effect.Effect<boolean, FleetUnavailable>
  readonly list: Effect.Effect<ReadonlyArray<FleetAccount>, FleetUnavailable>
  /**
   * The credentials of an account, opened, and the store account its bills are kept under. With
   * `owner`, records in the same statement that `owner` begins a pass of the account (a runner
   * opens an account for every pass: one statement, not a read and a write). Since 0.2.0 the
   * claim comes with the read; there is no `claim` of its own. With `nextPass` too, the same
   * statement records when the account's next pass is due, as the pass expects it (see
   * `nextPassOf`).
   */
  readonly open: (
    label: string,
    owner?: string | undefined,
    nextPass?: number | undefined
  ) => Effect.Effect<
    { readonly credentials: Credentials; readonly account: StoreAccount.StoreAccount },
    FleetUnavailable | FleetAccountUnknown | FleetCredentialsUnreadable | FleetKeyInvalid
  >
  /**
   * Records how a pass of the account ended, per kind, and whether the exchange refused its
   * credentials (`undefined`: the pass did not reach the exchange, the count stays). Answers the
   * passes refused in a row, kept in the account's row so that the backoff they set survives the
   * entity, the runner and a hand-over. Since 0.2.0 a pass without failure or refusal, of an
   * account whose `open` (with an owner) found no failure and no refusal recorded, writes
   * nothing: there is nothing to change.
   */
  readonly record: (
    label: string,
    errors: PassErrors,
    refused?: boolean | undefined
  ) => Effect.Effect<number, FleetUnavailable>
  /** Records that `owner` no longer owns the account (a hand-over). */
  readonly release: (label: string, owner: string) => Effect.Effect<void, FleetUnavailable>
  /**
   * When the account's next pass is due (epoch ms), as its runner last recorded it: a runner that
   * takes the account over waits for it. Undefined when none was recorded or there is no such
   * account.
   *
   * @since 0.2.0
   */
  readonly nextPassOf: (label: string) => Effect.Effect<number | undefined, FleetUnavailable>
  /**
   * Records when the account's next pass is due, where its pass ended otherwise than it expected
   * when it began (`open`'s `nextPass`).
   *
   * @since 0.2.0
   */
  readonly scheduleNextPass: (label: string, at: number) => Effect.Effect<void, FleetUnavailable>
}

/**
 * What a pass ended with, per kind it walked: the failure, or `undefined` for none. A kind left
 * out was not walked and keeps what was recorded before.
 *
 * @since 0.1.0
 * @category models
 */
export type PassErrors = { readonly [K in BillKind]?: string | undefined }

interface AccountRow {
  readonly label: string
  readonly added_at: number | string
  readonly owner: string | null
  readonly owner_seen: number | string | null
  readonly funding_error: string | null
  readonly spot_error: string | null
  readonly funding_error_since: number | string | null
  readonly spot_error_since: number | string | null
  readonly contract_error: string | null
  readonly contract_error_since: number | string | null
  readonly next_pass: number | string | null
}

/** PostgreSQL's advisory lock for creating the table: runners started together create it once. */
const schemaLockKey = 7_264_105_221

const optionalNumber = (value: number | string | null): number | undefined =>
  value === null ? undefined : Number(value)

/**
 * How to open the table: `create` (the default) makes it where there is none (`add`, `run`);
 * without it a database that holds no fleet fails with `FleetNotFound` and is left as it was
 * (`status`, `remove`, `rekey`).
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenOptions {
  readonly create?: boolean | undefined
}

/**
 * Opens the table on the `SqlClient` in context, creating it when missing (see
 * {@link OpenOptions}). The `FleetCipher` is needed only to add accounts and open their
 * credentials: `status` and `remove` run without `BILLS_FLEET_KEY`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  target: string,
  options?: OpenOptions
): Effect.Effect<FleetAccountsShape, FleetUnavailable | FleetNotFound, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cipherOption = yield* Effect.serviceOption(FleetCipher)
    const cipher = Effect.mapError(
      cipherOption,
      () => new FleetKeyInvalid({ reason: "is not set", variable: "BILLS_FLEET_KEY" })
    )
    const mapped = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) =>
      Effect.catchIf(
        effect,
        (error): error is SqlError => (error as { _tag?: unknown })._tag === "SqlError",
        (error) => Effect.fail(new FleetUnavailable({ target, reason: error.message }))
      ) as Effect.Effect<A, Exclude<E, SqlError> | FleetUnavailable, R>
    const now = Effect.clockWith((clock) => clock.currentTimeMillis)

    if (options?.create === false) {
      const found = yield* mapped(
        sql<{ readonly found: boolean }>`SELECT to_regclass('fleet_accounts') IS NOT NULL AS found`
      )
      if (found[0]?.found !== true) return yield* new FleetNotFound({ target })
    }
    yield* mapped(
      sql.withTransaction(
        Effect.zipRight(
          sql`SELECT pg_advisory_xact_lock(${schemaLockKey})`,
          sql`CREATE TABLE IF NOT EXISTS fleet_accounts (
            label text PRIMARY KEY,
            fingerprint text NOT NULL,
            sealed text NOT NULL,
            added_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            owner text,
            owner_seen bigint,
            funding_error text,
            spot_error text
          )`.pipe(
            // Tables made before failures were dated get the columns.
            Effect.zipRight(sql`ALTER TABLE fleet_accounts
              ADD COLUMN IF NOT EXISTS funding_error_since bigint,
              ADD COLUMN IF NOT EXISTS spot_error_since bigint,
              ADD COLUMN IF NOT EXISTS refusals integer NOT NULL DEFAULT 0`),
            // And, since the futures account, its kind's.
            Effect.zipRight(sql`ALTER TABLE fleet_accounts
              ADD COLUMN IF NOT EXISTS contract_error text,
              ADD COLUMN IF NOT EXISTS contract_error_since bigint`),
            // And, since an account's passes run in one loop, when its next pass is due.
            Effect.zipRight(sql`ALTER TABLE fleet_accounts ADD COLUMN IF NOT EXISTS next_pass bigint`)
          )
        )
      )
    )

    const add = (label: string, credentials: Credentials) =>
      mapped(
        Effect.gen(function* () {
          if (!isLabel(label)) return yield* new FleetLabelInvalid({ label })
          const opener = yield* cipher
          // A key that opens none of the others' credentials is not the fleet's: rows sealed
          // under it would fail on every runner. One that opens any of them is (a damaged row
          // does not stop the fleet from growing); the newest are the likeliest to open.
          const others = yield* sql<{ readonly label: string; readonly sealed: string }>`
            SELECT label, sealed FROM fleet_accounts WHERE label <> ${label} ORDER BY updated_at DESC`
          if (others.length > 0) {
            const opens = yield* Effect.findFirst(others, (row) => Effect.isSuccess(opener.open(row.label, row.sealed)))
            if (opens._tag === "None") return yield* new FleetKeyMismatch({ stored: others.length })
          }
          const sealed = yield* opener.seal(label, credentials)
          const at = yield* now
          // The store keeps an account's rows under the fingerprint of the key it was first
          // synced with, so a replaced key keeps the label's fingerprint.
          const fingerprint = StoreAccount.fingerprint(credentials.apiKey)
          const rows = yield* sql<{ readonly inserted: boolean }>`
            INSERT INTO fleet_accounts (label, fingerprint, sealed, added_at, updated_at)
            VALUES (${label}, ${fingerprint}, ${sealed}, ${at}, ${at})
            ON CONFLICT (label) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at
            RETURNING (xmax = 0) AS inserted`
          return rows[0]?.inserted === false ? ("replaced" as const) : ("added" as const)
        })
      )

    const rekey = mapped(
      sql.withTransaction(
        Effect.gen(function* () {
          const opener = yield* cipher
          const rows = yield* sql<{ readonly label: string; readonly sealed: string }>`
            SELECT label, sealed FROM fleet_accounts ORDER BY label FOR UPDATE`
          const opened = yield* Effect.forEach(rows, (row) =>
            Effect.either(Effect.map(opener.open(row.label, row.sealed), (credentials) => ({ row, credentials })))
          )
          const refused = opened.flatMap((each) => (each._tag === "Left" ? [each.left.label] : []))
          if (refused.length > 0) return yield* new FleetRekeyRefused({ labels: refused })
          const at = yield* now
          for (const each of opened) {
            if (each._tag === "Left") continue
            const sealed = yield* opener.seal(each.right.row.label, each.right.credentials)
            yield* sql`UPDATE fleet_accounts SET sealed = ${sealed}, updated_at = ${at} WHERE label = ${each.right.row.label}`
          }
          return rows.length
        })
      )
    )

    const remove = (label: string) =>
      mapped(
        Effect.map(sql`DELETE FROM fleet_accounts WHERE label = ${label} RETURNING label`, (rows) => rows.length > 0)
      )

    const list = mapped(
      Effect.map(
        sql<AccountRow>`SELECT label, added_at, owner, owner_seen, funding_error, spot_error, funding_error_since, spot_error_since,
            contract_error, contract_error_since, next_pass
          FROM fleet_accounts ORDER BY label`,
        (rows) =>
          rows.map(
            (row): FleetAccount => ({
              label: row.label,
              addedAt: Number(row.added_at),
              owner: row.owner ?? undefined,
              ownerSeen: optionalNumber(row.owner_seen),
              errors: {
                funding: row.funding_error ?? undefined,
                spot: row.spot_error ?? undefined,
                contract: row.contract_error ?? undefined
              },
              errorsSince: {
                funding: optionalNumber(row.funding_error_since),
                spot: optionalNumber(row.spot_error_since),
                contract: optionalNumber(row.contract_error_since)
              },
              nextPass: optionalNumber(row.next_pass)
            })
          )
      )
    )

    // The accounts a runner has opened for a pass whose row held no failure and no refusal: the
    // pass's `record` of a clean end has nothing to change there, and sends nothing (most passes
    // of a fleet find nothing and fail nothing). Taken by the next `record` of the label.
    const clean = new Set<string>()
    type Sealed = { readonly fingerprint: string; readonly sealed: string; readonly clean?: boolean }
    const open = (label: string, owner?: string | undefined, nextPass?: number | undefined) =>
      mapped(
        Effect.gen(function* () {
          const rows = yield* owner === undefined
            ? sql<Sealed>`SELECT fingerprint, sealed FROM fleet_accounts WHERE label = ${label}`
            : sql<Sealed>`UPDATE fleet_accounts SET owner = ${owner}, owner_seen = ${yield* now},
                next_pass = COALESCE(${nextPass ?? null}::bigint, next_pass)
                WHERE label = ${label} RETURNING fingerprint, sealed,
                  (funding_error IS NULL AND spot_error IS NULL AND contract_error IS NULL AND refusals = 0) AS clean`
          const row = rows[0]
          if (row?.clean === true) clean.add(label)
          else clean.delete(label)
          if (row === undefined) return yield* new FleetAccountUnknown({ label })
          const credentials = yield* (yield* cipher).open(label, row.sealed)
          const account: StoreAccount.StoreAccount = { fingerprint: row.fingerprint, label, id: label }
          return { credentials, account }
        })
      )

    const record = (label: string, errors: PassErrors, refused?: boolean | undefined) =>
      // A clean end of a pass that opened a clean row changes nothing there: no failure to set
      // or clear, refusals 0 and kept 0. `status`'s last pass is then the pass's beginning, which
      // `open` wrote.
      Effect.suspend(() =>
        clean.delete(label) && refused !== true && Object.values(errors).every((error) => error === undefined)
          ? Effect.succeed(0)
          : recordRow(label, errors, refused)
      )
    const recordRow = (label: string, errors: PassErrors, refused: boolean | undefined) =>
      mapped(
        Effect.flatMap(now, (at) => {
          const funding = "funding" in errors
          const spot = "spot" in errors
          const contract = "contract" in errors
          const counted = refused === undefined ? null : refused
          return Effect.map(
            // A failure keeps the time it began while it goes on; a success clears it; a kind
            // the pass did not walk keeps what it had.
            sql<{ readonly refusals: number | string }>`UPDATE fleet_accounts SET
              funding_error_since = CASE WHEN NOT ${funding} THEN funding_error_since
                WHEN ${errors.funding ?? null}::text IS NULL THEN NULL
                WHEN funding_error IS NULL THEN ${at} ELSE COALESCE(funding_error_since, ${at}) END,
              spot_error_since = CASE WHEN NOT ${spot} THEN spot_error_since
                WHEN ${errors.spot ?? null}::text IS NULL THEN NULL
                WHEN spot_error IS NULL THEN ${at} ELSE COALESCE(spot_error_since, ${at}) END,
              contract_error_since = CASE WHEN NOT ${contract} THEN contract_error_since
                WHEN ${errors.contract ?? null}::text IS NULL THEN NULL
                WHEN contract_error IS NULL THEN ${at} ELSE COALESCE(contract_error_since, ${at}) END,
              funding_error = CASE WHEN ${funding} THEN ${errors.funding ?? null} ELSE funding_error END,
              spot_error = CASE WHEN ${spot} THEN ${errors.spot ?? null} ELSE spot_error END,
              contract_error = CASE WHEN ${contract} THEN ${errors.contract ?? null} ELSE contract_error END,
              refusals = CASE WHEN ${counted}::boolean IS NULL THEN refusals
                WHEN ${counted}::boolean THEN refusals + 1 ELSE 0 END,
              owner_seen = ${at}
              WHERE label = ${label}
              RETURNING refusals`,
            (rows) => Number(rows[0]?.refusals ?? 0)
          )
        })
      )

    const release = (label: string, owner: string) =>
      mapped(
        Effect.asVoid(
          sql`UPDATE fleet_accounts SET owner = NULL, owner_seen = NULL WHERE label = ${label} AND owner = ${owner}`
        )
      )

    const nextPassOf = (label: string) =>
      mapped(
        Effect.map(
          sql<{
            readonly next_pass: number | string | null
          }>`SELECT next_pass FROM fleet_accounts WHERE label = ${label}`,
          (rows) => optionalNumber(rows[0]?.next_pass ?? null)
        )
      )

    const scheduleNextPass = (label: string, at: number) =>
      mapped(Effect.asVoid(sql`UPDATE fleet_accounts SET next_pass = ${at} WHERE label = ${label}`))

    return FleetAccounts.of({
      target,
      add,
      rekey,
      remove,
      list,
      open,
      record,
      release,
      nextPassOf,
      scheduleNextPass
    })
  })

/**
 * The fleet's account table.
 *
 * @since 0.1.0
 * @category tags
 */
export class FleetAccounts extends Context.Tag("@account-bills/fleet/FleetAccounts")<
  FleetAccounts,
  FleetAccountsShape
>() {
  /** See {@link make}. */
  static readonly make = make
  /** The table on the `SqlClient` in context. */
  static readonly layer = (
    target: string,
    options?: OpenOptions
  ): Layer.Layer<FleetAccounts, FleetUnavailable | FleetNotFound, SqlClient.SqlClient> =>
    Layer.effect(FleetAccounts, make(target, options))
}
