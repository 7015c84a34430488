/**
 * Keeps a store up to date with the exchange. The first run walks the history from `from`
 * (everything the exchange serves by default); later runs walk only from the end already
 * covered, minus an overlap for bills that become visible late, up to now. Each page's bills
 * and the walk's cursor commit in one transaction, so a process killed at any instant loses
 * and repeats nothing: the next run resumes from the cursor. A lease per account and kind
 * lets one sync at a time write.
 *
 * @since 0.1.0
 */
import {
  BillsApi,
  type BillsError,
  FundingCursor,
  type FundingPage,
  SpotCursor,
  type SpotPage,
  TimeBound,
  type TimeInput
} from "@account-bills/core"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { type BillKind, BillsStore, type ListOrder } from "./BillsStore.js"
import type { StoreAccount } from "./StoreAccount.js"
import { StoreUnavailable, type SyncStoreError, SyncBusy } from "./StoreErrors.js"

/**
 * What to sync.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncOptions {
  readonly account: StoreAccount
  /** Default both. */
  readonly kinds?: ReadonlyArray<BillKind> | undefined
  /** Where the first run starts; default: everything the exchange serves. Later runs ignore it. */
  readonly from?: TimeInput | undefined
  /** How late a bill may become visible after its `cTime` and still be found. Default 60 s. */
  readonly overlap?: Duration.DurationInput | undefined
  /** How long a lease lasts unless renewed (each page renews it). Default 30 s. */
  readonly lease?: Duration.DurationInput | undefined
  /** How long to wait for another sync's lease before failing with `SyncBusy`. Default: one lease and a second. */
  readonly waitForLease?: Duration.DurationInput | undefined
  /**
   * Requests in flight per kind, as in the stream queries; default `defaultConcurrency`, `1` walks
   * one page at a time.
   */
  readonly concurrency?: number | undefined
  /** Called after each committed page. */
  readonly onPage?: ((progress: SyncProgress) => Effect.Effect<void>) | undefined
}

/**
 * Where one kind's sync stands after a page.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncProgress {
  readonly kind: BillKind
  readonly pages: number
  readonly requests: number
  /** Bills the store did not hold before. */
  readonly added: number
}

/**
 * What one kind's sync did.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncSummary extends SyncProgress {
  /** The run continued a walk that an earlier run left unfinished. */
  readonly resumed: boolean
  /** The window this run's walk read, `[from, to)` epoch ms. */
  readonly from: number
  readonly to: number
  /** Bills the store holds for this account and kind now. */
  readonly stored: number
}

const encodeFunding = Schema.encodeSync(Schema.parseJson(FundingCursor))
const encodeSpot = Schema.encodeSync(Schema.parseJson(SpotCursor))
const decodeFunding = Schema.decodeUnknown(Schema.parseJson(FundingCursor))
const decodeSpot = Schema.decodeUnknown(Schema.parseJson(SpotCursor))

/** The funding order as one page shows it: times falling means newest first. */
const fundingOrder = (page: FundingPage): ListOrder | undefined => {
  const first = page.bills[0]
  const last = page.bills.at(-1)
  if (first === undefined || last === undefined) return undefined
  const a = DateTime.toEpochMillis(first.cTime)
  const b = DateTime.toEpochMillis(last.cTime)
  return a === b ? undefined : a > b ? "newest-first" : "oldest-first"
}

const spotOrder = (page: SpotPage): ListOrder | undefined =>
  page.cursor.order === "unknown" ? undefined : page.cursor.order

/**
 * The next pages are fetched while one commits, so the store's time hides behind the
 * exchange's. Pages still commit one by one in order; fetched pages lost in a crash are
 * fetched again from the last committed cursor.
 */
const ahead = <A, E>(pages: Stream.Stream<A, E>) => Stream.buffer(pages, { capacity: 2 })

const allKinds: ReadonlyArray<BillKind> = ["funding", "spot"]

let ownerSequence = 0

/** A lease holder's name: unique per sync, and saying where it runs for whoever reads the table. */
const ownerName = (kind: BillKind, now: number) =>
  `${typeof process === "undefined" ? "sync" : `pid ${process.pid}`} ${kind} ${now} ${++ownerSequence}`

const syncKind = (options: SyncOptions, kind: BillKind) =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    const api = yield* BillsApi
    const account = options.account.id
    const leaseMillis = Duration.toMillis(options.lease ?? Duration.seconds(30))
    const waitMillis = Duration.toMillis(options.waitForLease ?? Duration.millis(leaseMillis + 1_000))
    const overlapMillis = Duration.toMillis(options.overlap ?? Duration.seconds(60))
    const concurrency = options.concurrency
    const owner = ownerName(kind, yield* Effect.clockWith((clock) => clock.currentTimeMillis))

    // The lease: taken (waiting for another holder up to `waitMillis`), renewed while the walk
    // runs, and let go however the sync ends. A killed holder's lease simply runs out.
    const started = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    yield* Effect.acquireRelease(
      Effect.gen(function* () {
        while (true) {
          const lease = yield* store.acquireLease(account, kind, owner, leaseMillis)
          if (lease.acquired) return
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          if (now - started >= waitMillis) return yield* new SyncBusy({ account, kind, until: lease.until })
          yield* Effect.sleep(Duration.millis(Math.min(Math.max(lease.until - now, 1), 250, waitMillis)))
        }
      }),
      () => Effect.ignore(store.releaseLease(account, kind, owner))
    )
    yield* Effect.forkScoped(
      Effect.ignore(store.acquireLease(account, kind, owner, leaseMillis)).pipe(
        Effect.delay(Duration.millis(Math.max(leaseMillis / 3, 1))),
        Effect.forever
      )
    )

    const state = yield* store.state(account, kind)
    const resumed = state.cursor !== undefined
    const given =
      options.from === undefined ? undefined : yield* Schema.decode(TimeBound)(options.from).pipe(Effect.orDie)
    const from = state.covered === undefined ? given : Math.max(state.covered.to - overlapMillis, state.covered.from, 0)
    const broken = (reason: string) =>
      new StoreUnavailable({ target: store.target, reason: `the stored cursor of ${account} ${kind}: ${reason}` })

    let pages = 0
    let requests = 0
    let added = 0
    let window = { from: from ?? 0, to: 0 }
    const commit = (
      bills: FundingPage["bills"] | SpotPage["bills"],
      cursor: FundingCursor | SpotCursor,
      encoded: string,
      order: ListOrder | undefined
    ) =>
      Effect.gen(function* () {
        window = { from: cursor.from ?? 0, to: cursor.end }
        added += yield* store.commitPage({
          account,
          kind,
          owner,
          leaseMillis,
          bills,
          cursor: encoded,
          finished: cursor.done ? window : undefined,
          order
        })
        pages += 1
        requests = cursor.requests
        if (options.onPage !== undefined) yield* options.onPage({ kind, pages, requests, added })
      })

    if (kind === "funding") {
      const cursor =
        state.cursor === undefined
          ? undefined
          : yield* Effect.mapError(decodeFunding(state.cursor), (error) => broken(error.message))
      yield* Stream.runForEach(
        ahead(api.streamFundingPages(cursor === undefined ? { from, concurrency } : { cursor, concurrency })),
        (page) => commit(page.bills, page.cursor, encodeFunding(page.cursor), fundingOrder(page))
      )
    } else {
      const cursor =
        state.cursor === undefined
          ? undefined
          : yield* Effect.mapError(decodeSpot(state.cursor), (error) => broken(error.message))
      yield* Stream.runForEach(
        ahead(api.streamSpotPages(cursor === undefined ? { from, concurrency } : { cursor, concurrency })),
        (page) => commit(page.bills, page.cursor, encodeSpot(page.cursor), spotOrder(page))
      )
    }
    const stored = yield* store.count(account, kind)
    return { kind, pages, requests, added, resumed, from: window.from, to: window.to, stored } satisfies SyncSummary
  }).pipe(Effect.scoped, Effect.withSpan("Sync.kind", { attributes: { kind } }))

/**
 * Syncs the account's bills into the store, both kinds at once, and returns what each did.
 *
 * @since 0.1.0
 * @category sync
 */
export const run: (
  options: SyncOptions
) => Effect.Effect<ReadonlyArray<SyncSummary>, BillsError | SyncStoreError, BillsApi | BillsStore> = Effect.fn(
  "Sync.run"
)(function* (options: SyncOptions) {
  const store = yield* BillsStore
  yield* store.register(options.account)
  return yield* Effect.forEach(options.kinds ?? allKinds, (kind) => syncKind(options, kind), {
    concurrency: "unbounded"
  })
})
