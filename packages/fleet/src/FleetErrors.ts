/**
 * Every failure of the fleet a user can meet, as `Schema.TaggedError` classes with a message a
 * person understands. None holds a secret: credentials appear nowhere, database and Redis URLs
 * only without their password.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `BILLS_FLEET_KEY` is missing or is not 32 bytes in base64.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetKeyInvalid extends Schema.TaggedError<FleetKeyInvalid>("@account-bills/fleet/FleetKeyInvalid")(
  "FleetKeyInvalid",
  {
    reason: Schema.String,
    /**
     * The variable at fault: `BILLS_FLEET_KEY` when absent, or `BILLS_FLEET_KEY_PREVIOUS`. Not
     * `name`, which is the error's class name (`Error.prototype.name`): a message read from it
     * named the class where the variable belonged. @since 0.2.0
     */
    variable: Schema.optional(Schema.String)
  }
) {
  override get message(): string {
    const variable = this.variable ?? "BILLS_FLEET_KEY"
    // The previous key is not made: it is the key the fleet had before.
    const remedy =
      variable === "BILLS_FLEET_KEY_PREVIOUS"
        ? "set it to the key being replaced (32 bytes, base64), or unset it once bills fleet rekey has run"
        : `make one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`
    return `${variable} ${this.reason}; ${remedy}`
  }
}

/**
 * `bills fleet add` under a key that opens none of the credentials already stored: another key
 * than the fleet's. Nothing was written; a key is changed by rotating it.
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetKeyMismatch extends Schema.TaggedError<FleetKeyMismatch>("@account-bills/fleet/FleetKeyMismatch")(
  "FleetKeyMismatch",
  { stored: Schema.Number }
) {
  override get message(): string {
    return `this BILLS_FLEET_KEY opens none of the ${this.stored} accounts stored: it is not the fleet's key, and nothing was added. To change the key, set BILLS_FLEET_KEY_PREVIOUS to the fleet's key and BILLS_FLEET_KEY to the new one (runners too), then run bills fleet rekey`
  }
}

/**
 * `bills fleet rekey` found credentials that neither `BILLS_FLEET_KEY` nor
 * `BILLS_FLEET_KEY_PREVIOUS` opens: it changed nothing.
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetRekeyRefused extends Schema.TaggedError<FleetRekeyRefused>("@account-bills/fleet/FleetRekeyRefused")(
  "FleetRekeyRefused",
  { labels: Schema.Array(Schema.String) }
) {
  override get message(): string {
    const shown = this.labels.slice(0, 5).join(", ") + (this.labels.length > 5 ? `, … (${this.labels.length})` : "")
    return `nothing was re-encrypted: neither BILLS_FLEET_KEY nor BILLS_FLEET_KEY_PREVIOUS opens the credentials of ${shown}; set BILLS_FLEET_KEY_PREVIOUS to the key they were added with, or add those accounts again`
  }
}

/**
 * Stored credentials do not decrypt with this key: another `BILLS_FLEET_KEY`, or a damaged row.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetCredentialsUnreadable extends Schema.TaggedError<FleetCredentialsUnreadable>(
  "@account-bills/fleet/FleetCredentialsUnreadable"
)("FleetCredentialsUnreadable", { label: Schema.String }) {
  override get message(): string {
    return `the credentials of "${this.label}" do not decrypt with this BILLS_FLEET_KEY (nor BILLS_FLEET_KEY_PREVIOUS): it is not the key they were added with, or the row is damaged; add the account again`
  }
}

/**
 * The fleet's database cannot be opened, read or written.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetUnavailable extends Schema.TaggedError<FleetUnavailable>("@account-bills/fleet/FleetUnavailable")(
  "FleetUnavailable",
  { target: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `cannot use the fleet database ${this.target}: ${this.reason}`
  }
}

/**
 * The fleet's database is not PostgreSQL. `@effect/cluster`'s SQL storage has a SQLite path (shard
 * locks as rows that expire), but the fleet's runners share one database across processes and
 * machines, and its shard locks are PostgreSQL advisory locks, freed the moment a runner dies.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetNeedsPostgres extends Schema.TaggedError<FleetNeedsPostgres>(
  "@account-bills/fleet/FleetNeedsPostgres"
)("FleetNeedsPostgres", { target: Schema.String }) {
  override get message(): string {
    return `the fleet needs a PostgreSQL database (postgres://…), not ${this.target}: its runners share one database for accounts, messages and shard locks across processes and machines, and the locks are PostgreSQL advisory locks, freed the moment a runner dies`
  }
}

/**
 * No account of the fleet has this label.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetAccountUnknown extends Schema.TaggedError<FleetAccountUnknown>(
  "@account-bills/fleet/FleetAccountUnknown"
)("FleetAccountUnknown", { label: Schema.String }) {
  override get message(): string {
    return `the fleet has no account labelled "${this.label}"`
  }
}

/**
 * The database answers but holds no fleet: no `fleet_accounts` table. Commands that only read
 * (`status`, `remove`, `rekey`) say so and create nothing; `add` and `run` create the fleet.
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetNotFound extends Schema.TaggedError<FleetNotFound>("@account-bills/fleet/FleetNotFound")(
  "FleetNotFound",
  { target: Schema.String }
) {
  override get message(): string {
    return `${this.target} holds no fleet (it has no fleet_accounts table): is --db the fleet's database? bills fleet add creates one there`
  }
}

/**
 * The runner cannot listen on its cluster address (`--host`, `--port`): the port is taken, or
 * the address is not this machine's.
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetPortUnavailable extends Schema.TaggedError<FleetPortUnavailable>(
  "@account-bills/fleet/FleetPortUnavailable"
)("FleetPortUnavailable", { host: Schema.String, port: Schema.Number, reason: Schema.String }) {
  override get message(): string {
    return `the runner cannot listen on ${this.host}:${this.port} (--port): ${this.reason}; choose a free --port, and a --host that is an address of this machine`
  }
}

/**
 * A label that breaks the rule of {@link labelRule}: nothing was added.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetLabelInvalid extends Schema.TaggedError<FleetLabelInvalid>("@account-bills/fleet/FleetLabelInvalid")(
  "FleetLabelInvalid",
  { label: Schema.String }
) {
  override get message(): string {
    const shown = this.label.length > 40 ? `${this.label.slice(0, 40)}… (${this.label.length} characters)` : this.label
    return `the label "${shown}" is not allowed: ${labelRule}`
  }
}

/**
 * What a label may be, in words; `isLabel` checks it.
 *
 * @since 0.1.0
 * @category constants
 */
export const labelRule =
  "a label is 1 to 64 characters: ASCII letters, digits, '.', '_', '-', '@' and '+', beginning with a letter or digit"

const labelPattern = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/

/**
 * Whether `label` keeps {@link labelRule}.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isLabel = (label: string): boolean => labelPattern.test(label)

/**
 * The shared budget cannot be used: the Redis at `target` (its password masked) could not be
 * reached or refused a command; `reason` gives its own failure (`connect ECONNREFUSED …`). No
 * request goes out without a grant, so `AddressBudget.layerRedis` fails with it.
 *
 * @since 0.1.0
 * @category errors
 */
export class BudgetUnavailable extends Schema.TaggedError<BudgetUnavailable>("@account-bills/fleet/BudgetUnavailable")(
  "BudgetUnavailable",
  { target: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `cannot use the shared budget at ${this.target}: ${this.reason}`
  }
}

/**
 * Any failure of the fleet's own parts.
 *
 * @since 0.1.0
 * @category errors
 */
export type FleetError =
  | FleetKeyInvalid
  | FleetLabelInvalid
  | FleetCredentialsUnreadable
  | FleetUnavailable
  | FleetNeedsPostgres
  | FleetAccountUnknown
  | FleetNotFound
  | FleetPortUnavailable
  | FleetKeyMismatch
  | FleetRekeyRefused
