/**
 * The lease of an account and kind, and the fence it makes: a sync writes only while no other
 * sync has taken its lease (a lease that ran out may be taken; until then its holder goes on). Every write that depends on the lease states that condition in its
 * own `WHERE`, so the check and the write are one statement: PostgreSQL re-checks it on the row's
 * latest version after waiting for its lock (a `SELECT` then an `UPDATE` would let two processes
 * both pass under READ COMMITTED), and SQLite runs it under the write lock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Kind, Order, SyncRow } from "./storeRows.js"

/** A lease to take or renew: `until` is when it runs out unless renewed, epoch ms. */
const LeaseRequest = Schema.Struct({
  account: Schema.String,
  kind: Kind,
  owner: Schema.String,
  now: Schema.Number,
  until: Schema.Number
})

/** A walk's progress to record under the lease: its cursor, or the window it finished. */
const AdvanceRequest = Schema.Struct({
  account: Schema.String,
  kind: Kind,
  owner: Schema.String,
  now: Schema.Number,
  until: Schema.Number,
  cursor: Schema.NullOr(Schema.String),
  finished: Schema.NullOr(Schema.Struct({ from: Schema.Number, to: Schema.Number })),
  /** With `finished`, the kind's aged-out windows as JSON, when they change. */
  agedOut: Schema.NullOr(Schema.String),
  order: Schema.NullOr(Order),
  /** Let the lease go in the same statement: the walk's last page, after which it writes nothing. */
  release: Schema.Boolean
})

/** A row the condition let through. */
const Touched = Schema.Struct({ account: Schema.String })

/** The lease queries on `ab_sync`, over the `SqlClient` in context. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Takes the lease if it is free, run out, or already the owner's; the row when taken, so that
   * the sync reads where it stands in the statement that takes the lease (the row is the
   * holder's from then on: nobody else writes it while the lease holds).
   */
  const take = SqlSchema.findAll({
    Request: LeaseRequest,
    Result: SyncRow,
    execute: (lease) =>
      sql`UPDATE ab_sync SET lease_owner = ${lease.owner}, lease_until = ${lease.until}
        WHERE account = ${lease.account} AND kind = ${lease.kind}
          AND (lease_owner IS NULL OR lease_owner = ${lease.owner} OR lease_until < ${lease.now})
        RETURNING covered_from, covered_to, cursor, server_order, lease_owner, lease_until, aged_out`
  })

  /**
   * Renews the lease for its holder only: a lease let go (or taken by another) stays so. Some
   * row when renewed.
   */
  const renew = SqlSchema.findAll({
    Request: LeaseRequest,
    Result: Touched,
    execute: (lease) =>
      sql`UPDATE ab_sync SET lease_until = ${lease.until}
        WHERE account = ${lease.account} AND kind = ${lease.kind} AND lease_owner = ${lease.owner}
        RETURNING account`
  })

  /** Lets the lease go, if the owner still holds it. */
  const release = SqlSchema.void({
    Request: Schema.Struct({ account: Schema.String, kind: Kind, owner: Schema.String }),
    execute: (lease) =>
      sql`UPDATE ab_sync SET lease_owner = NULL, lease_until = NULL
        WHERE account = ${lease.account} AND kind = ${lease.kind} AND lease_owner = ${lease.owner}`
  })

  /**
   * Records a walk's progress and renews the lease, only while the owner still holds the lease
   * (nobody took it over); no row comes back otherwise. A finished walk widens the covered window to take
   * in the window it read, and drops the cursor. The statement itself is also the fence a page's
   * bills are inserted behind, in one statement, on PostgreSQL (billQueries.insertBehind).
   */
  const advanceStatement = (page: typeof AdvanceRequest.Encoded) => {
    // The owner alone is the fence: whoever takes a lease writes its own name into it, in one
    // statement, so a holder whose name is still there has had no other writer since. A holder
    // that stalled past its lease (a loaded machine, a long pause) and was not displaced goes
    // on; one that was displaced is refused.
    const fence = sql`account = ${page.account} AND kind = ${page.kind} AND lease_owner = ${page.owner}`
    const order = sql`server_order = COALESCE(${page.order}, server_order)`
    const lease = page.release ? sql`lease_owner = NULL, lease_until = NULL` : sql`lease_until = ${page.until}`
    return page.finished === null
      ? sql`UPDATE ab_sync SET cursor = ${page.cursor}, ${order}, ${lease}
            WHERE ${fence} RETURNING account`
      : sql`UPDATE ab_sync SET cursor = NULL,
            covered_from = CASE WHEN covered_from IS NULL OR covered_from > ${page.finished.from}
              THEN ${page.finished.from} ELSE covered_from END,
            covered_to = CASE WHEN covered_to IS NULL OR covered_to < ${page.finished.to}
              THEN ${page.finished.to} ELSE covered_to END,
            aged_out = COALESCE(${page.agedOut}, aged_out),
            ${order}, ${lease}
            WHERE ${fence} RETURNING account`
  }

  /** {@link advanceStatement}, run: a row back when the owner held the lease. */
  const advance = SqlSchema.findAll({ Request: AdvanceRequest, Result: Touched, execute: advanceStatement })

  return { take, renew, release, advance, advanceStatement } as const
})
