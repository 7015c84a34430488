/**
 * One pass of one account: the existing `Sync.run` of each kind (funding, spot, contract), each stopped after a bounded
 * number of pages (a stop after a committed page loses nothing: the next pass resumes from the
 * stored cursor), with the account's own client: its credentials, its per-key limiter, and the
 * runner's per-address budget before every attempt.
 *
 * @since 0.1.0
 */
import {
  BillKind,
  BillsApi,
  BillsConfig,
  type BillsConfigInput,
  BillsRateLimiter,
  type BillsRateLimiterShape,
  type Credentials,
  type OperationName,
  Signer,
  withSecretHeadersRedacted
} from "@account-bills/core"
import { BillsStore, type StoreAccount, Sync } from "@account-bills/store"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { AddressBudget } from "./AddressBudget.js"
import type { PassErrors } from "./FleetAccounts.js"
import * as FleetMetrics from "./FleetMetrics.js"

/**
 * Settings of a pass.
 *
 * @since 0.1.0
 * @category models
 */
export interface PassOptions {
  /** Pages per kind before the pass stops and asks for another at once. */
  readonly pagesPerPass: number
  /** Requests in flight per kind; default {@link defaultConcurrency}. */
  readonly concurrency?: number | undefined
  /**
   * The store lease of each kind (renewed on every page): how long a killed runner's account
   * stays locked before its next owner may write it. Default 10 s.
   */
  readonly lease?: Duration.DurationInput | undefined
  /** Base URL and other client settings. */
  readonly config?: BillsConfigInput | undefined
  /** The kinds to walk; default all three. */
  readonly kinds?: ReadonlyArray<BillKind> | undefined
  /**
   * When the pass stops its walks (epoch ms): each kind after the first page that arrives once
   * the clock reads it, and asks for another pass at once, as at the page bound. (Since 0.2.0.)
   */
  readonly until?: number | undefined
}

/**
 * A pass walks each kind one page at a time. Many accounts share one address budget, so pages
 * read ahead for one account make no account current sooner; and a pass that stops at its page
 * bound would throw away what it had read ahead (funding's next pages, the spot pool's later
 * segments), paid from that shared budget. One page at a time, every request a pass makes is a
 * page it keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultConcurrency = 1

/**
 * Pages per kind in one pass, by default: a long first sync goes on in the passes after.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPagesPerPass = 20

/**
 * How one kind's part of a pass ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface KindOutcome {
  readonly kind: BillKind
  /** True when the walk reached now; false when it stopped at the page bound or failed. */
  readonly done: boolean
  /** Bills the store did not hold before, stored by this pass. */
  readonly added: number
  /**
   * Requests this pass sent for the kind, prefetched pages included: what the exchange and the
   * shared budget count. Not the walk's own tally, which counts across the passes of a resumed walk.
   */
  readonly requests: number
  /** The failure, in words a person reads; no secret in it. */
  readonly error: string | undefined
  /**
   * True when the exchange refused the account's credentials (authentication or permission) on
   * the funding or spot interface. The futures interface refusing a key (no futures permission,
   * no futures account) is the contract kind's error only: the other two kinds go on, and the
   * account does not back off for it.
   */
  readonly refused: boolean
}

/**
 * The limiter of one account: its own per-key limiter, then a grant of the per-address budget,
 * for every attempt.
 *
 * @since 0.1.0
 * @category constructors
 */
export const limiter = (perKey: BillsRateLimiterShape, budget: AddressBudget["Type"]): BillsRateLimiterShape =>
  BillsRateLimiter.of({
    withPermit: (operation, observe) => (request) =>
      perKey.withPermit(operation, observe)(budget.withGrant(operation)(request)),
    take: (operation) => perKey.withPermit(operation)(budget.withGrant(operation)(Effect.void))
  })

const operations: Record<BillKind, OperationName> = {
  funding: "fundingBills",
  spot: "spotBills",
  contract: "contractBills"
}

// Tagged once: a pass counts into them at every request and page.
const requestsOf: Record<OperationName, Metric.Metric.Counter<number>> = {
  fundingBills: Metric.tagged(FleetMetrics.requests, "kind", "funding"),
  spotBills: Metric.tagged(FleetMetrics.requests, "kind", "spot"),
  contractBills: Metric.tagged(FleetMetrics.requests, "kind", "contract")
}
const billsOf: Record<BillKind, Metric.Metric.Counter<number>> = {
  funding: Metric.tagged(FleetMetrics.bills, "kind", "funding"),
  spot: Metric.tagged(FleetMetrics.bills, "kind", "spot"),
  contract: Metric.tagged(FleetMetrics.bills, "kind", "contract")
}

/**
 * Runs one pass of `account`.
 *
 * @since 0.1.0
 * @category passes
 */
export const run = Effect.fn("AccountPass.run")(function* (
  account: StoreAccount.StoreAccount,
  credentials: Credentials,
  perKey: BillsRateLimiterShape,
  options: PassOptions
) {
  const budget = yield* AddressBudget
  const sent: Record<OperationName, number> = { fundingBills: 0, spotBills: 0, contractBills: 0 }
  const shared = limiter(perKey, budget)
  // Counted once the permits are granted, as the request leaves; into the metric at once, not
  // at the pass's end: a pass interrupted (its account's shard moved to a runner that joined)
  // sent its requests all the same.
  const counting = BillsRateLimiter.of({
    withPermit: (operation, observe) => (request) =>
      shared.withPermit(
        operation,
        observe
      )(
        Effect.zipRight(
          Effect.zipRight(
            Effect.sync(() => void sent[operation]++),
            Metric.increment(requestsOf[operation])
          ),
          request
        )
      ),
    take: shared.take
  })
  // The client of this pass, made as plain effects: as layers (`BillsApi.layer` over the signer's,
  // the limiter's and the settings'), their scope, memo map and fibers cost a steady pass more
  // than the client itself (bench/passWork.ts).
  const api = Effect.gen(function* () {
    const config = yield* BillsConfig.make(options.config ?? {})
    const signer = yield* Signer.make(credentials)
    return yield* Effect.provide(
      BillsApi.make,
      Context.make(BillsConfig, config).pipe(Context.add(Signer, signer), Context.add(BillsRateLimiter, counting))
    )
  })
  const store = yield* BillsStore
  // The covered window each kind's sync reports, for the lag gauges: no state read of its own.
  const covered = new Map<BillKind, Sync.SyncSummary["covered"]>()
  const one = (kind: BillKind) =>
    Effect.gen(function* () {
      let added = 0
      const ended = yield* Sync.run({
        account,
        kinds: [kind],
        concurrency: options.concurrency ?? defaultConcurrency,
        maxPages: options.pagesPerPass,
        until: options.until,
        lease: options.lease ?? Duration.seconds(10),
        // A pass reports what it added; counting what the store holds would read every bill.
        countStored: false,
        // Registered once for the pass's kinds, below.
        registered: true,
        // Counted as each page is committed: an interrupted pass's pages stay stored.
        onPage: (progress) =>
          Effect.suspend(() => {
            const more = progress.added - added
            added = progress.added
            return Metric.incrementBy(billsOf[kind], more)
          })
      }).pipe(Effect.either)
      const requests = sent[operations[kind]]
      if (ended._tag === "Left") {
        const failure = ended.left
        const refused =
          kind !== "contract" &&
          failure._tag === "BillsApiError" &&
          (failure.reason === "Authentication" || failure.reason === "Permission")
        return { kind, done: false, added, requests, error: failure.message, refused } satisfies KindOutcome
      }
      for (const summary of ended.right) covered.set(summary.kind, summary.covered)
      return {
        kind,
        done: ended.right.every((summary) => summary.done),
        added,
        requests,
        error: undefined,
        refused: false
      } satisfies KindOutcome
    })
  const walked = options.kinds ?? BillKind.literals
  const failed = (error: string): ReadonlyArray<KindOutcome> =>
    walked.map((kind): KindOutcome => ({ kind, done: false, added: 0, requests: 0, error, refused: false }))
  const registered = yield* Effect.either(store.register(account))
  const outcomes =
    registered._tag === "Left"
      ? failed(registered.left.message)
      : yield* Effect.flatMap(api, (client) =>
          withSecretHeadersRedacted(
            Effect.provideService(Effect.forEach(walked, one, { concurrency: "unbounded" }), BillsApi, client)
          )
        ).pipe(Effect.catchTag("ConfigError", (error) => Effect.succeed(failed(String(error)))))
  const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
  for (const outcome of outcomes) {
    // A kind whose sync failed reports no window: the store says where it stands.
    const window = covered.has(outcome.kind)
      ? covered.get(outcome.kind)
      : yield* Effect.map(Effect.option(store.state(account.id, outcome.kind)), (state) =>
          state._tag === "Some" ? state.value.covered : undefined
        )
    if (window !== undefined) {
      yield* Metric.set(
        FleetMetrics.lag.pipe(Metric.tagged("account", account.id), Metric.tagged("kind", outcome.kind)),
        now - window.to
      )
      yield* Metric.set(
        FleetMetrics.coveredTo.pipe(Metric.tagged("account", account.id), Metric.tagged("kind", outcome.kind)),
        window.to
      )
    }
  }
  const outcome = outcomes.some((each) => each.error !== undefined)
    ? "failed"
    : outcomes.every((each) => each.done)
      ? "done"
      : "more"
  yield* Metric.increment(Metric.tagged(FleetMetrics.passes, "outcome", outcome))
  return outcomes
})

/**
 * The services a pass needs besides its account: the HttpClient, the store and the address budget.
 *
 * @since 0.1.0
 * @category models
 */
export type PassServices = HttpClient.HttpClient | BillsStore | AddressBudget

/**
 * The kinds whose walks a pass stopped at its page bound: the next pass goes on with them at
 * once, and with them alone.
 *
 * @since 0.1.0
 * @category passes
 */
export const unfinished = (outcomes: ReadonlyArray<KindOutcome>): ReadonlyArray<BillKind> =>
  outcomes.filter((outcome) => !outcome.done && outcome.error === undefined).map((outcome) => outcome.kind)

/**
 * What a pass's outcomes record for the account, per kind it walked: its failure or none.
 *
 * @since 0.1.0
 * @category passes
 */
export const errorsOf = (outcomes: ReadonlyArray<KindOutcome>): PassErrors => {
  const errors: { -readonly [K in BillKind]?: string | undefined } = {}
  for (const outcome of outcomes) errors[outcome.kind] = outcome.error
  return errors
}
