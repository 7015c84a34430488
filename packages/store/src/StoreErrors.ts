/**
 * Every failure of the store a user can meet, as `Schema.TaggedError` classes with a message a
 * person understands. None holds a secret: database URLs appear only with their password
 * removed, and accounts only as a label or a fingerprint.
 *
 * @since 0.1.0
 */
import { BillKind } from "@account-bills/core"
import * as Schema from "effect/Schema"

/**
 * The store cannot be opened, read or written: a path that does not exist or is not
 * writable, a server that refuses the connection, a statement that failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>("@account-bills/StoreUnavailable")(
  "StoreUnavailable",
  {
    /** The path, or the URL without its password. */
    target: Schema.String,
    reason: Schema.String
  }
) {
  override get message(): string {
    return `cannot use the store ${this.target}: ${this.reason}`
  }
}

/**
 * The store's schema is newer than this version of the library knows: it was written by a
 * later release, and reading or writing it could lose what that release keeps.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreTooNew extends Schema.TaggedError<StoreTooNew>("@account-bills/StoreTooNew")("StoreTooNew", {
  target: Schema.String,
  version: Schema.Int,
  supported: Schema.Int
}) {
  override get message(): string {
    return `the store ${this.target} has schema version ${this.version}, newer than the ${this.supported} this version of account-bills knows; upgrade account-bills`
  }
}

/**
 * The store already holds a different account (another API key) under this label.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreAccountMismatch extends Schema.TaggedError<StoreAccountMismatch>(
  "@account-bills/StoreAccountMismatch"
)("StoreAccountMismatch", {
  label: Schema.String
}) {
  override get message(): string {
    return `the store holds another account under the label "${this.label}": this API key is not the one it was synced with; use another label or another store`
  }
}

/**
 * The disk (or the database's quota) filled up during a write. Nothing of the failed page
 * was kept: the next sync continues from the last page that was.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreDiskFull extends Schema.TaggedError<StoreDiskFull>("@account-bills/StoreDiskFull")("StoreDiskFull", {
  target: Schema.String
}) {
  override get message(): string {
    return `the disk is full while writing the store ${this.target}; the store keeps every page committed before, free some space and sync again`
  }
}

/**
 * A database URL with a password in it: passwords in URLs end up in shell histories and
 * process lists, so they are refused. The message shows the URL without it.
 *
 * @since 0.1.0
 * @category errors
 */
export class StorePasswordInUrl extends Schema.TaggedError<StorePasswordInUrl>("@account-bills/StorePasswordInUrl")(
  "StorePasswordInUrl",
  {
    /** The URL with its password removed. */
    target: Schema.String
  }
) {
  override get message(): string {
    return `refusing the database URL ${this.target}: it carries a password; remove it from the URL and set PGPASSWORD instead`
  }
}

/**
 * Another sync of the same account and kind holds the store's lease, and did not let go
 * within the time this sync was willing to wait.
 *
 * @since 0.1.0
 * @category errors
 */
export class SyncBusy extends Schema.TaggedError<SyncBusy>("@account-bills/SyncBusy")("SyncBusy", {
  account: Schema.String,
  kind: BillKind,
  /** When the other sync's lease runs out unless it renews it, epoch ms. */
  until: Schema.Number
}) {
  override get message(): string {
    return `another sync of ${this.account} ${this.kind} bills is running on this store (its lease runs to ${new Date(this.until).toISOString()}); wait for it to finish`
  }
}

/**
 * The store holds no bills of the account asked for, or holds several and none was chosen.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreAccountUnknown extends Schema.TaggedError<StoreAccountUnknown>("@account-bills/StoreAccountUnknown")(
  "StoreAccountUnknown",
  {
    target: Schema.String,
    reason: Schema.String
  }
) {
  override get message(): string {
    return `no account to read in the store ${this.target}: ${this.reason}`
  }
}

/**
 * The reason of a `StoreNotFound` whose PostgreSQL database does not exist: the server's to
 * create, which a sync cannot do.
 *
 * @since 0.1.0
 * @category errors
 */
export const missingDatabase = "the PostgreSQL database does not exist"

/**
 * A read found no store where it was told to look: the SQLite file does not exist, or the
 * file or database holds no account-bills store. Reads never create one; a sync does.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreNotFound extends Schema.TaggedError<StoreNotFound>("@account-bills/StoreNotFound")("StoreNotFound", {
  /** The path, or the URL without its password. */
  target: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason === missingDatabase
      ? `no store at ${this.target}: ${this.reason}; create it on the server (createdb), then sync into it`
      : `no store at ${this.target}: ${this.reason}; check the path, or run a sync to create one there`
  }
}

/**
 * A read of what a store holds completely met a kind of an account that no sync has finished
 * yet: the store holds none of its history completely. Sync it first, or read what it holds
 * with `partial`.
 *
 * @since 0.2.0
 * @category errors
 */
export class StoreNotSynced extends Schema.TaggedError<StoreNotSynced>("@account-bills/StoreNotSynced")(
  "StoreNotSynced",
  {
    target: Schema.String,
    /** The stored account's id (its label or key fingerprint). */
    account: Schema.String,
    kind: Schema.String
  }
) {
  override get message(): string {
    return `the store ${this.target} holds no finished sync of the ${this.kind} bills of ${this.account}: run a sync first, or read what it holds with partial`
  }
}

/**
 * Any failure of the store.
 *
 * @since 0.1.0
 * @category errors
 */
export type StoreError =
  | StoreUnavailable
  | StoreTooNew
  | StoreAccountMismatch
  | StoreAccountUnknown
  | StoreDiskFull
  | StorePasswordInUrl
  | StoreNotFound
  | StoreNotSynced

/**
 * Any failure of a sync on the store's side.
 *
 * @since 0.1.0
 * @category errors
 */
export type SyncStoreError = StoreError | SyncBusy
