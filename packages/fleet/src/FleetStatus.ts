/**
 * Where every account of the fleet stands: per kind, the end of the window the store is known
 * to hold completely, the bills it holds, and what the latest pass failed with; and the runner
 * that passes the account now.
 *
 * @since 0.1.0
 */
import { type BillKind, BillsStore, type StoreFailure } from "@account-bills/store"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { FleetAccounts } from "./FleetAccounts.js"
import type { FleetUnavailable } from "./FleetErrors.js"
import * as WatchedKinds from "./internal/watchedKinds.js"

/**
 * One kind of one account.
 *
 * @since 0.1.0
 * @category models
 */
export interface KindStatus {
  /** The end of the window the store holds completely, epoch ms; null before the first finished walk. */
  readonly coveredTo: number | null
  readonly bills: number
  readonly error: string | null
  /** Since when (epoch ms) the kind's passes fail with `error`; null when they do not. */
  readonly errorSince: number | null
  /** How far behind the store is: now − `coveredTo`, ms; null before the first finished walk. */
  readonly lagMillis: number | null
}

/**
 * One account, as `bills fleet status --json` prints it (one object per line).
 *
 * @since 0.1.0
 * @category models
 */
export interface AccountStatus {
  readonly label: string
  /** When the account was added, epoch ms: how long a kind that never synced has waited. */
  readonly addedAt: number
  readonly funding: KindStatus
  readonly spot: KindStatus
  /** The futures account (since 0.2.0). */
  readonly contract: KindStatus
  /** The runner passing the account (`host:port`), or null when none holds it. */
  readonly owner: string | null
  /** False when the owner has stopped heartbeating (it died; its accounts move soon); null without an owner. */
  readonly ownerAlive: boolean | null
  /** When a pass of the account last began or ended, epoch ms; null before the first. */
  readonly lastPass: number | null
  /**
   * When its next pass is due, epoch ms, as its runner last recorded it (to within the length of
   * the pass before it); null before its first pass.
   */
  readonly nextPass: number | null
}

/**
 * A runner as the cluster's runner table shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunnerStatus {
  /** `host:port`. */
  readonly address: string
  /** Its last heartbeat, ms before now by the database's clock. */
  readonly heartbeatAgeMillis: number
  /** It heartbeat within `staleAfterMillis`. */
  readonly alive: boolean
}

/**
 * A runner whose heartbeat is older than this is taken for dead: the cluster moves its shards
 * after about as long (shard locks expire after 15 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const staleAfterMillis = 15_000

/**
 * The runners the cluster knows, with how long ago each last heartbeat; none before a runner
 * ever joined.
 *
 * @since 0.1.0
 * @category status
 */
export const runners: Effect.Effect<ReadonlyArray<RunnerStatus>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly address: string; readonly age: number | string }>`
      SELECT address, EXTRACT(EPOCH FROM (now() - last_heartbeat)) * 1000 AS age FROM cluster_runners ORDER BY address`
  return rows.map((row) => ({
    address: row.address,
    heartbeatAgeMillis: Math.max(0, Math.round(Number(row.age))),
    alive: Number(row.age) <= staleAfterMillis
  }))
}).pipe(Effect.orElseSucceed(() => []))

/**
 * The status of every account, by label.
 *
 * @since 0.1.0
 * @category status
 */
export const all: Effect.Effect<
  ReadonlyArray<AccountStatus>,
  FleetUnavailable | StoreFailure,
  FleetAccounts | BillsStore | SqlClient.SqlClient
> = Effect.gen(function* () {
  const accounts = yield* FleetAccounts
  const store = yield* BillsStore
  const listed = yield* accounts.list
  const alive = new Map((yield* runners).map((runner) => [runner.address, runner.alive]))
  const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
  return yield* Effect.forEach(
    listed,
    (account) =>
      Effect.gen(function* () {
        const kind = (name: BillKind) =>
          Effect.gen(function* () {
            const state = yield* store.state(account.label, name)
            return {
              coveredTo: state.covered?.to ?? null,
              bills: yield* store.count(account.label, name),
              error: account.errors[name] ?? null,
              errorSince: account.errorsSince[name] ?? null,
              lagMillis: state.covered === undefined ? null : Math.max(0, now - state.covered.to)
            } satisfies KindStatus
          })
        return {
          label: account.label,
          addedAt: account.addedAt,
          funding: yield* kind("funding"),
          spot: yield* kind("spot"),
          contract: yield* kind("contract"),
          owner: account.owner ?? null,
          ownerAlive: account.owner === undefined ? null : (alive.get(account.owner) ?? false),
          lastPass: account.ownerSeen ?? null,
          nextPass: account.nextPass ?? null
        } satisfies AccountStatus
      }),
    { concurrency: 4 }
  )
}).pipe(Effect.withSpan("FleetStatus.all"))

/**
 * True when a monitoring check watches `kind` of an account, given whether its walk ever finished
 * (`covered`) and whether its passes fail now (`failing`): funding and spot always, the futures
 * account once a contract walk has finished or while it does not fail. One rule for the status's
 * exit codes (`bills fleet status`), its summary line and the runner's gauges.
 *
 * @since 0.2.0
 * @category status
 */
export const isWatched: (kind: BillKind, covered: boolean, failing: boolean) => boolean = WatchedKinds.isWatched
