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
import { type BillsApi, type BillsError, BillKind as BillKinds, TimeBound, type TimeInput } from "@account-bills/core"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { type BillKind, BillsStore, type SyncState } from "./BillsStore.js"
import { kindWalks, type WalkPage } from "./internal/kindWalks.js"
import * as LeaseHolder from "./internal/leaseHolder.js"
import type { StoreAccount } from "./StoreAccount.js"
import { StoreUnavailable, type SyncStoreError } from "./StoreErrors.js"

/**
 * What to sync.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncOptions {
  readonly account: StoreAccount
  /** Default all three. */
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
  /**
   * Stop each kind after this many pages (requests that bring bills); the next run resumes from
   * the stored cursor. The walk asks for no page beyond it, so at `concurrency` 1 every request
   * made is a page kept. Default: no bound.
   */
  readonly maxPages?: number | undefined
  /**
   * Stop each kind after the first page that arrives once the clock (Effect's) reads this time,
   * epoch ms; the next run resumes from the stored cursor, as at `maxPages` (and as there, at
   * `concurrency` 1 every request made is a page kept). A fleet bounds a pass in time with it, so
   * that one kind's long walk does not hold back the others' next pass. (Since 0.2.0.)
   */
  readonly until?: number | undefined
  /**
   * Called after each committed page, in one step with its commit: a run interrupted reports
   * every page it committed.
   */
  readonly onPage?: ((progress: SyncProgress) => Effect.Effect<void>) | undefined
  /**
   * Count the bills the store holds, for the summary's `stored`; default true. The count reads
   * every bill of the account and kind, so a caller that syncs often and does not report it (a
   * fleet's pass) turns it off. (Since 0.2.0.)
   */
  readonly countStored?: boolean | undefined
  /**
   * The caller has registered the account with this store already (`BillsStore.register`, which
   * fails on a label that belongs to another key): the run does not read its row again. A fleet's
   * pass registers once for its three kinds. Default false. (Since 0.2.0.)
   */
  readonly registered?: boolean | undefined
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
  /** The walk reached its end; false when it stopped at `maxPages` (the next run resumes it). */
  readonly done: boolean
  /** The run continued a walk that an earlier run left unfinished. */
  readonly resumed: boolean
  /** The requests the earlier runs of a resumed walk sent; 0 for a fresh walk. */
  readonly earlierRequests: number
  /**
   * A window between what the store covered and what this run read that no sync will read:
   * the exchange's history horizon passed it before this run (see `SyncState.agedOut`).
   */
  readonly agedOut: { readonly from: number; readonly to: number } | undefined
  /** The window this run's walk read, `[from, to)` epoch ms. */
  readonly from: number
  readonly to: number
  /**
   * The window the store covers for this account and kind after this run, as in
   * `SyncState.covered`: what a caller reports (a lag) without reading the state again. Since 0.2.0.
   */
  readonly covered: { readonly from: number; readonly to: number } | undefined
  /** Bills the store holds for this account and kind now; undefined when `countStored` is false. */
  readonly stored: number | undefined
}

/**
 * The pulls of a walk, the next pages fetched while one commits so that the store's time hides
 * behind the exchange's: from the third pull on, a fiber pulls up to two ahead. The first two go
 * to the walk directly: a walk of one page (a steady pass: the page, then its end) forks nothing
 * for a read-ahead it would not use, and a longer one gives up the overlap for its first commit
 * only. A queue of pulls rather than `Stream.buffer` over the walk, which forked two fibers and
 * ran a second stream's channel per page. Pages still commit one by one in order; fetched pages
 * lost in a crash are fetched again from the last committed cursor.
 */
const readAhead = <A, E>(pull: Effect.Effect<A, E>, scope: Scope.Scope): Effect.Effect<A, E> => {
  let direct = 0
  let ahead: Queue.Queue<Exit.Exit<A, E>> | undefined
  const start = Effect.gen(function* () {
    const queue = yield* Queue.bounded<Exit.Exit<A, E>>(2)
    // Stops after the first failure (the walk's end is one): nothing is pulled after it.
    const produce: Effect.Effect<void> = Effect.flatMap(Effect.exit(pull), (exit) =>
      Effect.zipRight(Queue.offer(queue, exit), Exit.isSuccess(exit) ? produce : Effect.void)
    )
    yield* Effect.forkIn(produce, scope)
    return queue
  })
  return Effect.suspend(() => {
    if (direct < 2) {
      direct += 1
      return pull
    }
    return Effect.flatMap(
      // A queue is an effect too (it takes): the tap must not return it.
      ahead === undefined
        ? Effect.tap(start, (queue) => {
            ahead = queue
          })
        : Effect.succeed(ahead),
      (queue) => Effect.flatten(Queue.take(queue))
    )
  })
}

/**
 * The pages a run takes: at most `maxPages`, and none after the one that arrives once `until` has
 * passed. Applied to the walk's pull before the read-ahead, so the walk is asked for no page
 * beyond either bound. On the pull, not as `Stream.take` and `Stream.takeUntilEffect` stages:
 * each stage costs its channel's machinery per run, and a fleet runs a walk per kind per pass.
 */
const bounded = <A, E>(
  pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<E>>,
  options: SyncOptions
): Effect.Effect<Chunk.Chunk<A>, Option.Option<E>> => {
  const { maxPages, until } = options
  if (maxPages === undefined && until === undefined) return pull
  let taken = 0
  let stopped = false
  // What is kept of a chunk: the first page only once `until` has passed (`passed`: the clock is
  // read once for the chunk, whose pages came together), and no more than the bound on pages.
  const keep = (chunk: Chunk.Chunk<A>, passed: boolean): Chunk.Chunk<A> => {
    let kept = chunk
    if (passed && Chunk.size(kept) > 0) {
      kept = Chunk.take(kept, 1)
      stopped = true
    }
    if (maxPages !== undefined) {
      const room = maxPages - taken
      if (Chunk.size(kept) >= room) {
        kept = Chunk.take(kept, room)
        stopped = true
      }
      taken += Chunk.size(kept)
    }
    return kept
  }
  return Effect.suspend(() => {
    if (stopped || maxPages === 0) return Effect.fail(Option.none())
    return Effect.flatMap(pull, (chunk) =>
      until === undefined
        ? Effect.succeed(keep(chunk, false))
        : Effect.map(Clock.currentTimeMillis, (now) => keep(chunk, now >= until))
    )
  })
}

/**
 * A lease holder's name: unique per sync (a random UUID, so that no two processes, nor two
 * syncs of one process, ever share it), and saying where it runs for whoever reads the table.
 */
const ownerName = (kind: BillKind) =>
  Effect.sync(
    () => `${typeof process === "undefined" ? "sync" : `pid ${process.pid}`} ${kind} ${globalThis.crypto.randomUUID()}`
  )

/** What the walk has done so far: folded over its committed pages. */
interface Tally {
  readonly pages: number
  readonly requests: number
  readonly added: number
  readonly window: { readonly from: number; readonly to: number }
  /** The walk reached its end. */
  readonly done: boolean
}

/**
 * The aged-out windows once a walk that read `window` is recorded, when it adds one: the part
 * between the covered window's end and the start of `window`, which the exchange no longer
 * served when this walk began (its history horizon had passed it).
 */
const agedOutWith = (state: SyncState, window: { readonly from: number; readonly to: number }) =>
  state.covered !== undefined && window.from > state.covered.to
    ? [...state.agedOut, { from: state.covered.to, to: window.from }]
    : undefined

/** The covered window once a finished walk that read `window` is recorded (as the store widens it). */
const widened = (
  covered: SyncState["covered"],
  window: { readonly from: number; readonly to: number }
): { readonly from: number; readonly to: number } =>
  covered === undefined ? window : { from: Math.min(covered.from, window.from), to: Math.max(covered.to, window.to) }

const syncKind = (options: SyncOptions, kind: BillKind) =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    const account = options.account.id
    const leaseMillis = Duration.toMillis(options.lease ?? Duration.seconds(30))
    const overlapMillis = Duration.toMillis(options.overlap ?? Duration.seconds(60))
    const owner = yield* ownerName(kind)
    // The state comes with the lease, read by the statement that takes it.
    const { letGo, state } = yield* LeaseHolder.hold({
      account,
      kind,
      owner,
      leaseMillis,
      waitMillis: Duration.toMillis(options.waitForLease ?? Duration.millis(leaseMillis + 1_000))
    })
    const given =
      options.from === undefined ? undefined : yield* Schema.decode(TimeBound)(options.from).pipe(Effect.orDie)
    const from = state.covered === undefined ? given : Math.max(state.covered.to - overlapMillis, state.covered.from, 0)
    const walk = yield* Effect.mapError(
      kindWalks[kind]({ from, cursor: state.cursor, concurrency: options.concurrency }),
      ({ reason }) =>
        new StoreUnavailable({ target: store.target, reason: `the stored cursor of ${account} ${kind}: ${reason}` })
    )
    // A page that ends the walk is taken with what follows it, a failure included (taken as a
    // value, so that the page before it still commits): a page with nothing after it is this
    // run's last, and lets the lease go in its own statement. The walk's `done` does not say
    // that: a window walk may end with more than one page marked done. Pulled by hand rather than through
    // `Stream.zipWithNext` and a fold: a fleet runs this for every kind of every account every
    // interval, and each stream stage costs its channel's machinery per run and per page.
    const { earlierRequests } = walk
    const pull = readAhead(bounded(walk.pull, options), yield* Effect.scope)
    let queued: Array<WalkPage> = []
    let ended = false
    const next: Effect.Effect<Option.Option<Either.Either<WalkPage, BillsError>>> = Effect.suspend(() => {
      const queuedPage = queued.shift()
      if (queuedPage !== undefined) return Effect.succeed(Option.some(Either.right(queuedPage)))
      if (ended) return Effect.succeed(Option.none())
      return Effect.matchEffect(pull, {
        onFailure: (failure) => {
          ended = true
          return Effect.succeed(Option.map(failure, Either.left))
        },
        onSuccess: (chunk) => {
          queued = Chunk.toArray(chunk)
          return next
        }
      })
    })
    // A page's commit and its report are one step, not interrupted between them: a commit
    // interrupted while its statement is in flight may still be kept by the server, and
    // `onPage` (the fleet counts stored bills with it) would never hear of it.
    const commit = (before: Tally, page: WalkPage, last: boolean): Effect.Effect<Tally, SyncStoreError> =>
      Effect.uninterruptible(
        Effect.gen(function* () {
          // Past a history horizon the exchange serves nothing older than `servedFrom`: the store
          // holds completely what is served, so that is where its covered window starts.
          const window = { from: Math.max(page.cursor.from ?? 0, page.cursor.servedFrom ?? 0), to: page.cursor.end }
          const added = yield* store.commitPage({
            account,
            kind,
            owner,
            leaseMillis,
            bills: page.bills,
            cursor: page.encoded,
            finished: page.cursor.done ? window : undefined,
            agedOut: page.cursor.done ? agedOutWith(state, window) : undefined,
            order: page.order,
            // This run's last page lets the lease go in its own statement: nothing follows it.
            release: last
          })
          if (last) yield* letGo
          const after = {
            pages: before.pages + 1,
            // This run's requests: a resumed cursor's tally counts the earlier run's too.
            requests: page.cursor.requests - earlierRequests,
            added: before.added + added,
            window,
            done: page.cursor.done
          }
          if (options.onPage !== undefined) {
            yield* options.onPage({ kind, pages: after.pages, requests: after.requests, added: after.added })
          }
          return after
        })
      )
    let tally: Tally = { pages: 0, requests: 0, added: 0, window: { from: from ?? 0, to: 0 }, done: false }
    let current = yield* next
    while (Option.isSome(current)) {
      if (Either.isLeft(current.value)) return yield* Effect.fail(current.value.left)
      const page = current.value.right
      // A page of a walk that goes on commits as it arrives, before the next is asked for: a
      // pass ended while it waits for the next page's grant (its account handed over, its runner
      // killed) leaves nothing uncommitted that the next owner would ask for again (issue 52,
      // section 4: a futures walk's empty slices are sent once per account). Only a page that
      // ends the walk waits for what follows, to let the lease go in its own statement (a steady
      // pass: one page, one statement); a run cut at its bound lets it go when its scope closes.
      // No fiber for it: the read-ahead fetches the next page while this one commits.
      if (!page.cursor.done) {
        tally = yield* commit(tally, page, false)
        current = yield* next
        continue
      }
      const following = yield* next
      tally = yield* commit(tally, page, Option.isNone(following))
      current = following
    }
    const stored = options.countStored === false ? undefined : yield* store.count(account, kind)
    return {
      kind,
      pages: tally.pages,
      requests: tally.requests,
      added: tally.added,
      done: tally.done,
      resumed: state.cursor !== undefined,
      earlierRequests,
      agedOut: tally.done ? agedOutWith(state, tally.window)?.at(-1) : undefined,
      from: tally.window.from,
      to: tally.window.to,
      covered: tally.done ? widened(state.covered, tally.window) : state.covered,
      stored
    } satisfies SyncSummary
  }).pipe(Effect.scoped, Effect.withSpan("Sync.kind", { attributes: { kind } }))

/**
 * Syncs the account's bills into the store, every kind asked for at once (the three by default),
 * and returns what each did.
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
  if (options.registered !== true) yield* store.register(options.account)
  const kinds = options.kinds ?? BillKinds.literals
  // A fleet's pass syncs one kind a call: no fiber of its own for it.
  return yield* Effect.forEach(kinds, (kind) => syncKind(options, kind), {
    concurrency: kinds.length > 1 ? "unbounded" : 1
  })
})
