/**
 * The store's operations over the `SqlClient` in context, composed from the queries of each
 * table. Pages commit their bills and the fenced cursor in one transaction.
 */
import { type ContractBill, FundingBillsPage, type FundingBill, type SpotBill } from "@account-bills/core"
import * as SqlClient from "@effect/sql/SqlClient"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type {
  BillKind,
  BillsStoreShape,
  OpenOptions,
  PageCommit,
  StoreCoverage,
  StoredAccount,
  StoredBillsQuery,
  StoredContractQuery,
  StoreFailure,
  SyncState
} from "../BillsStore.js"
import type { StoreAccount } from "../StoreAccount.js"
import { StoreAccountMismatch, type StoreNotFound, type StoreTooNew, SyncBusy } from "../StoreErrors.js"
import * as AccountQueries from "./accountQueries.js"
import * as BillQueries from "./billQueries.js"
import * as FundingBookmarks from "./fundingBookmarks.js"
import * as LeaseQueries from "./leaseQueries.js"
import { openStore } from "./openStore.js"
import { mapSqlFailure } from "./sqlFailure.js"
import type { SyncRow } from "./storeRows.js"
import * as SyncStateQueries from "./syncStateQueries.js"

/** The operation as a span of its own, as `Effect.fn` makes one. */
const traced = <Args extends ReadonlyArray<unknown>, A, E, R>(
  name: string,
  operation: (...args: Args) => Effect.Effect<A, E, R>
): ((...args: Args) => Effect.Effect<A, E, R>) =>
  Effect.fn(name)(function* (...args: Args) {
    return yield* operation(...args)
  })

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** Where a sync stands, from its row of `ab_sync` (none: never synced). */
const stateOf = (row: typeof SyncRow.Type | undefined): SyncState => {
  const from = row?.covered_from ?? null
  const to = row?.covered_to ?? null
  return {
    covered: from === null || to === null ? undefined : { from, to },
    agedOut: row?.aged_out ?? [],
    cursor: row?.cursor ?? undefined,
    order: row?.server_order ?? "newest-first"
  }
}

/**
 * Opens the store on the `SqlClient` in context: runs the migrations, and refuses a store
 * whose schema is newer than this code.
 */
export const make = (
  target: string,
  options: OpenOptions = {}
): Effect.Effect<BillsStoreShape, StoreFailure | StoreTooNew | StoreNotFound, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const mapped = mapSqlFailure(target)
    yield* openStore(target, { create: options.create ?? true })
    const accountRows = yield* AccountQueries.make
    const bills = yield* BillQueries.make
    const leases = yield* LeaseQueries.make
    const syncRows = yield* SyncStateQueries.make

    // Every write is a transaction of its own on SQLite: SQLite then takes the write lock on a
    // connection of its own and commits explicitly. An autocommit insert on the shared connection
    // was, now and then with several processes opening one new file, never committed: the process
    // read its own account row back missing and took the store for another account's. On
    // PostgreSQL one statement is atomic by itself, and a BEGIN and COMMIT around it would be two
    // more round trips, each costing both processes CPU: a write of one statement goes alone.
    const alone = <A, E, R>(write: Effect.Effect<A, E, R>) =>
      sql.onDialectOrElse({ pg: () => write, orElse: () => sql.withTransaction(write) })

    const registered = (account: StoreAccount, row: Option.Option<{ readonly fingerprint: string }>) =>
      Option.isNone(row) || row.value.fingerprint !== account.fingerprint
        ? Effect.fail(new StoreAccountMismatch({ label: account.id }))
        : Effect.void

    // The rows of `ab_accounts` this store has read: an account's row is never changed or
    // removed once written (nothing updates or deletes it), so the key it names stays the key it
    // named. A fleet registers every account at every pass; after the first, no statement.
    const seen = new Map<string, string>()
    const remember = (row: Option.Option<{ readonly fingerprint: string }>, id: string) => {
      if (Option.isSome(row)) seen.set(id, row.value.fingerprint)
      return row
    }
    // An account is registered once, and every pass of it comes back: a row already there with
    // the same fingerprint is read, not written again; a row read before is not read again.
    const register = (account: StoreAccount) => {
      const known = seen.get(account.id)
      if (known !== undefined) return registered(account, Option.some({ fingerprint: known }))
      return mapped(
        Effect.flatMap(accountRows.byId(account.id), (row) =>
          Option.isSome(row)
            ? registered(account, remember(row, account.id))
            : sql.withTransaction(
                Effect.gen(function* () {
                  yield* accountRows.insert({
                    account: account.id,
                    fingerprint: account.fingerprint,
                    label: account.label ?? null
                  })
                  return yield* registered(account, remember(yield* accountRows.byId(account.id), account.id))
                })
              )
        )
      )
    }

    const state = (account: string, kind: BillKind) =>
      mapped(Effect.map(syncRows.read({ account, kind }), (found) => stateOf(Option.getOrUndefined(found))))

    /** When the lease of (account, kind) runs out, for `SyncBusy`: now if nobody holds it. */
    const leaseEnd = (account: string, kind: BillKind, at: number) =>
      Effect.map(
        syncRows.read({ account, kind }),
        (row) => Option.getOrUndefined(Option.flatMapNullable(row, (r) => r.lease_until)) ?? at
      )

    // Once a sync has touched the kind its row exists, and one statement takes the lease and
    // reads the state; the row is made, in a transaction with the take, only when that statement
    // finds none to take.
    const acquireLease = (account: string, kind: BillKind, owner: string, leaseMillis: number) =>
      mapped(
        Effect.gen(function* () {
          const at = yield* now
          const terms = { account, kind, owner, now: at, until: at + leaseMillis }
          const [row] = yield* alone(leases.take(terms))
          if (row !== undefined) return { acquired: true, state: stateOf(row) } as const
          return yield* sql.withTransaction(
            Effect.gen(function* () {
              yield* syncRows.ensure({ account, kind })
              const [taken] = yield* leases.take(terms)
              if (taken !== undefined) return { acquired: true, state: stateOf(taken) } as const
              return { acquired: false, until: yield* leaseEnd(account, kind, at) } as const
            })
          )
        })
      )

    const renewLease = (account: string, kind: BillKind, owner: string, leaseMillis: number) =>
      mapped(
        Effect.gen(function* () {
          const at = yield* now
          const renewed = yield* alone(leases.renew({ account, kind, owner, now: at, until: at + leaseMillis }))
          return renewed.length > 0
        })
      )

    const releaseLease = (account: string, kind: BillKind, owner: string) =>
      mapped(alone(leases.release({ account, kind, owner })))

    // The bills first, the fenced cursor last: if the fence refuses, the transaction rolls back
    // with the bills, and whoever holds the lease finds the store as it left it. A page with no
    // bill (a pass that found nothing new) is the fenced cursor alone: one statement. On
    // PostgreSQL a page with bills is one statement too: the fenced cursor, and the bills inserted
    // behind it only where it let a row through (BEGIN, INSERT, UPDATE, COMMIT were four round
    // trips, each costing both processes CPU, for every page of a first sync).
    const commitPage = (page: PageCommit): Effect.Effect<number, StoreFailure | SyncBusy> =>
      mapped(
        Effect.suspend(() => {
          const terms = (at: number) => ({
            account: page.account,
            kind: page.kind,
            owner: page.owner,
            now: at,
            until: at + page.leaseMillis,
            cursor: page.finished === undefined ? page.cursor : null,
            finished: page.finished ?? null,
            agedOut: page.finished === undefined || page.agedOut === undefined ? null : JSON.stringify(page.agedOut),
            order: page.order ?? null,
            release: page.release === true
          })
          const refused = (at: number) =>
            Effect.flatMap(
              leaseEnd(page.account, page.kind, at),
              (until) => new SyncBusy({ account: page.account, kind: page.kind, until })
            )
          const contractRows = () =>
            (page.bills as ReadonlyArray<ContractBill>).map((bill) => BillQueries.toContractRow(page.account, bill))
          const billRows = () =>
            (page.bills as ReadonlyArray<FundingBill | SpotBill>).map((bill) =>
              BillQueries.toRow(page.account, page.kind, bill)
            )
          const write = Effect.gen(function* () {
            const at = yield* now
            const added =
              page.kind === "contract" ? yield* bills.insertContract(contractRows()) : yield* bills.insert(billRows())
            const advanced = yield* leases.advance(terms(at))
            if (advanced.length === 0) return yield* refused(at)
            return added.length
          })
          const behind = Effect.gen(function* () {
            const at = yield* now
            const fence = leases.advanceStatement(terms(at))
            const written =
              page.kind === "contract"
                ? yield* bills.insertBehind("ab_contract_bills", contractRows(), fence)
                : yield* bills.insertBehind("ab_bills", billRows(), fence)
            if (!written.advanced) return yield* refused(at)
            return written.added
          })
          return page.bills.length === 0
            ? alone(write)
            : sql.onDialectOrElse({ pg: () => behind, orElse: () => sql.withTransaction(write) })
        })
      )

    const fundingBookmarks = FundingBookmarks.make()
    const orderOf = (account: string, kind: BillKind) => Effect.map(state(account, kind), (current) => current.order)

    const fundingPage = (
      account: string,
      query: StoredBillsQuery & { readonly pageIndex: number; readonly pageSize: number }
    ) =>
      Effect.gen(function* () {
        const listing = {
          account,
          kind: "funding" as const,
          order: yield* orderOf(account, "funding"),
          coinId: query.coinId,
          bizType: query.bizType,
          start: query.start,
          end: query.end,
          limit: query.pageSize,
          offset: (query.pageIndex - 1) * query.pageSize
        }
        // The listing's text, its page aside: the walk's pages share it (see fundingBookmarks.ts).
        const walk = JSON.stringify([account, listing.order, query.coinId, query.bizType, query.start, query.end])
        const known = listing.offset === 0 ? undefined : fundingBookmarks.nearest(walk, listing.offset)
        const total = known?.total ?? (yield* mapped(bills.countMatching(listing)))
        if (known === undefined) fundingBookmarks.start(walk, total)
        const mark = known?.mark
        const items = yield* mapped(
          bills.funding(
            mark === undefined ? listing : { ...listing, after: mark.after, offset: listing.offset - mark.offset }
          )
        )
        const last = items.at(-1)
        if (last !== undefined) {
          fundingBookmarks.record(walk, listing.offset + items.length, {
            time: DateTime.toEpochMillis(last.cTime),
            billId: last.billId
          })
        }
        return new FundingBillsPage({
          total,
          page: query.pageIndex,
          pageSize: query.pageSize,
          hasNextPage: listing.offset + items.length < total,
          items
        })
      })

    /** The first `limit` bills of a kind listed by time window, as its response would list them. */
    const windowPage = <A, E, R>(
      account: string,
      kind: "spot" | "contract",
      query: StoredBillsQuery & StoredContractQuery & { readonly limit: number },
      read: (listing: BillQueries.Listing) => Effect.Effect<A, E, R>
    ) =>
      Effect.flatMap(orderOf(account, kind), (order) =>
        mapped(
          read({
            account,
            kind,
            order,
            coinId: query.coinId,
            coinName: query.coinName,
            symbol: query.symbol,
            bizType: query.bizType,
            start: query.start,
            end: query.end,
            limit: query.limit,
            offset: 0
          })
        )
      )

    const spotPage = (account: string, query: StoredBillsQuery & { readonly limit: number }) =>
      windowPage(account, "spot", query, bills.spot)

    const contractPage = (account: string, query: StoredContractQuery & { readonly limit: number }) =>
      windowPage(account, "contract", query, bills.contract)

    const count = (account: string, kind: BillKind) => mapped(bills.count({ account, kind }))

    const coverage = (account: string, kind: BillKind) =>
      Effect.map(
        Effect.all([state(account, kind), count(account, kind)]),
        ([current, held]): StoreCoverage => ({
          account,
          kind,
          coveredFrom: current.covered?.from ?? null,
          coveredTo: current.covered?.to ?? null,
          unfinished: current.cursor !== undefined || current.covered === undefined,
          agedOut: current.agedOut,
          bills: held
        })
      )

    const accounts = mapped(
      Effect.map(accountRows.all, (rows) =>
        rows.map(
          (row): StoredAccount => ({ id: row.account, fingerprint: row.fingerprint, label: row.label ?? undefined })
        )
      )
    )

    return {
      accounts,
      target,
      register: traced("BillsStore.register", register),
      state,
      acquireLease: traced("BillsStore.acquireLease", acquireLease),
      renewLease: traced("BillsStore.renewLease", renewLease),
      releaseLease: traced("BillsStore.releaseLease", releaseLease),
      commitPage: traced("BillsStore.commitPage", commitPage),
      fundingPage: traced("BillsStore.fundingPage", fundingPage),
      spotPage: traced("BillsStore.spotPage", spotPage),
      contractPage: traced("BillsStore.contractPage", contractPage),
      count,
      coverage: traced("BillsStore.coverage", coverage)
    }
  })
