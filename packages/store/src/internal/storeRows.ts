/**
 * The store's rows as `Schema`s: what the engines return is decoded, never cast. SQLite returns
 * integers as numbers and PostgreSQL returns BIGINT (and `COUNT(*)`) as digit strings; both
 * decode through `DbInt`. A stored bill is the exchange's JSON text, decoded as the client
 * decodes a response.
 */
import { BillKind, ContractBillFromWire, FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import * as Schema from "effect/Schema"

/** An integer column, whichever way the engine returns it. */
export const DbInt = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int))

/** The kinds of bills, as stored in the `kind` column of `ab_sync` (and of `ab_bills`). */
export const Kind = BillKind

/** The order the exchange lists in, as stored in `server_order`. */
export const Order = Schema.Literal("newest-first", "oldest-first")

/** The key of a row of `ab_sync` (and of the bills of one account and kind). */
export const SyncKey = Schema.Struct({ account: Schema.String, kind: Kind })

/**
 * The aged-out windows of a kind as `ab_sync.aged_out` keeps them: JSON, `[{from, to}, …]`.
 */
export const AgedOut = Schema.parseJson(Schema.Array(Schema.Struct({ from: Schema.Number, to: Schema.Number })))

/** A row of `ab_sync`: what is covered, the walk's cursor, the lease, and the aged-out windows. */
export const SyncRow = Schema.Struct({
  covered_from: Schema.NullOr(DbInt),
  covered_to: Schema.NullOr(DbInt),
  cursor: Schema.NullOr(Schema.String),
  server_order: Schema.NullOr(Order),
  lease_owner: Schema.NullOr(Schema.String),
  lease_until: Schema.NullOr(DbInt),
  aged_out: Schema.NullOr(AgedOut)
})

/** A row of `ab_accounts`. */
export const AccountRow = Schema.Struct({
  account: Schema.String,
  fingerprint: Schema.String,
  label: Schema.NullOr(Schema.String)
})

/** The answer of a `COUNT(*) AS n` or `MAX(...) AS n`. */
export const CountRow = Schema.Struct({ n: Schema.NullOr(DbInt) })

/** A stored funding bill: the exchange's record as JSON text. */
export const FundingRow = Schema.Struct({ raw: Schema.parseJson(FundingBillFromWire) })

/** A stored spot bill: the exchange's record as JSON text. */
export const SpotRow = Schema.Struct({ raw: Schema.parseJson(SpotBillFromWire) })

/** A stored contract bill: the exchange's record as JSON text. */
export const ContractRow = Schema.Struct({ raw: Schema.parseJson(ContractBillFromWire) })
