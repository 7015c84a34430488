/**
 * Where every account of the fleet stands: per kind, the end of the window the store is known
 * to hold completely, the bills it holds, and what the latest pass failed with; and the runner
 * that passes the account now.
 *
 * @since 0.1.0
 */
import { type BillKind, BillsStore, type StoreFailure } from "@account-bills/store"
import * as Effect from "effect/Effect"
import { FleetAccounts } from "./FleetAccounts.js"
import type { FleetUnavailable } from "./FleetErrors.js"

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
}

/**
 * One account, as `bills fleet status --json` prints it (one object per line).
 *
 * @since 0.1.0
 * @category models
 */
export interface AccountStatus {
  readonly label: string
  readonly funding: KindStatus
  readonly spot: KindStatus
  /** The runner passing the account (`host:port`), or null when none holds it. */
  readonly owner: string | null
}

/**
 * The status of every account, by label.
 *
 * @since 0.1.0
 * @category status
 */
export const all: Effect.Effect<
  ReadonlyArray<AccountStatus>,
  FleetUnavailable | StoreFailure,
  FleetAccounts | BillsStore
> = Effect.gen(function* () {
  const accounts = yield* FleetAccounts
  const store = yield* BillsStore
  const listed = yield* accounts.list
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
              error: account.errors[name] ?? null
            } satisfies KindStatus
          })
        return {
          label: account.label,
          funding: yield* kind("funding"),
          spot: yield* kind("spot"),
          owner: account.owner ?? null
        } satisfies AccountStatus
      }),
    { concurrency: 4 }
  )
}).pipe(Effect.withSpan("FleetStatus.all"))
