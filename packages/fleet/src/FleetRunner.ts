/**
 * A runner of the fleet inside the user's own Effect app: a layer that joins the cluster on
 * PostgreSQL (`@effect/cluster`'s SQL message and runner storage; shard locks are PostgreSQL
 * advisory locks) over `NodeClusterSocket`, owns the accounts of its shards, and passes each
 * account every `interval`, in a loop per account whose next pass is due where the account's row
 * says. A singleton (one runner of the fleet at a time) gives every account
 * of the table a pending pass, and purges processed messages.
 *
 * @since 0.1.0
 */
import { BillKind, type BillsConfigInput } from "@account-bills/core"
import type { StoreError, StoreTooNew } from "@account-bills/store"
import * as Entity from "@effect/cluster/Entity"
import type * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as Singleton from "@effect/cluster/Singleton"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as SqlClient from "@effect/sql/SqlClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as AccountPass from "./AccountPass.js"
import { AddressBudget } from "./AddressBudget.js"
import { FleetAccounts } from "./FleetAccounts.js"
import type { FleetCipher } from "./FleetCipher.js"
import { AccountEntity, entityIdOf, PassRequest } from "./FleetEntity.js"
import { type FleetNeedsPostgres, type FleetNotFound, FleetPortUnavailable, FleetUnavailable } from "./FleetErrors.js"
import * as FleetDatabase from "./FleetDatabase.js"
import * as FleetObservability from "./FleetObservability.js"
import * as DatabaseClock from "./internal/databaseClock.js"
import { driverReason } from "./internal/driverReason.js"
import * as KeyLimiter from "./internal/keyLimiter.js"
import * as OneAtATime from "./internal/oneAtATime.js"
import * as PendingPasses from "./internal/pendingPasses.js"
import * as Egress from "./internal/egress.js"
import * as ListenCheck from "./internal/listenCheck.js"
import * as ReservedInOrder from "./internal/reservedInOrder.js"
import * as SteadyStretch from "./internal/steadyStretch.js"
import * as Stopping from "./internal/stopping.js"
import * as StoreWatch from "./internal/storeWatch.js"

/**
 * Settings of a runner.
 *
 * @since 0.1.0
 * @category models
 */
export interface FleetRunnerOptions {
  /** The fleet's PostgreSQL database, `postgres://user@host/db`; the password comes from `PGPASSWORD`. */
  readonly db: string
  /** The address other runners reach this one at. Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default 34431. */
  readonly port?: number | undefined
  /**
   * Time between the passes of an account that is current. Default 60 s. While the account's
   * address's budget is short, a pass that found nothing new stretches it, up to 8 times
   * (`internal/steadyStretch.ts`).
   */
  readonly interval?: Duration.DurationInput | undefined
  /** Pages per kind in one pass; a longer walk continues in the next pass, at once. Default 20. */
  readonly pagesPerPass?: number | undefined
  /**
   * Requests in flight per kind and account. Default 1 (`AccountPass.defaultConcurrency`): every
   * request a pass makes is a page it keeps.
   */
  readonly concurrency?: number | undefined
  /** The store lease per kind; see `AccountPass.PassOptions`. Default 10 s. */
  readonly lease?: Duration.DurationInput | undefined
  /** The per-key limit: requests per second per operation of one account. Default 10. */
  readonly maxRps?: number | undefined
  /** Client settings: base URL, locale, timeout. */
  readonly config?: BillsConfigInput | undefined
  /**
   * Local addresses to send the accounts' requests from, each with its own budget (the exchange
   * limits each source address apart). An account always leaves from the same one of them, chosen
   * by its label, so every runner given the same list agrees. Default: the system's choice, one
   * budget.
   */
  readonly localAddresses?: ReadonlyArray<string> | undefined
  /**
   * Serve `/metrics` (Prometheus), `/healthz` and `/readyz` on this port (and host, default
   * `127.0.0.1`); see `FleetObservability.layerServer`. Default: not served.
   */
  readonly metrics?: FleetObservability.MetricsServerOptions | undefined
  /** The cluster's timings, for tests; every runner of a fleet must use the same `shardsPerGroup`. */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Type"]> | undefined
}

/**
 * The cluster's timings the fleet uses: a dead runner's shards move within about 15 s (health
 * checks every 5 s, assignments refreshed every 2 s), and due passes are polled every second.
 * A runner that is stopped sends no request more (internal/stopping.ts) and interrupts its passes
 * after half a second, time for a request on its way to land and its page to be committed (each
 * pass resumes from its last committed page on the account's next owner): a stop hands over in
 * well under a second, and a pass left running for 10 s overlapped the next owner's.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSharding: Partial<ShardingConfig.ShardingConfig["Type"]> = {
  shardsPerGroup: 64,
  entityMessagePollInterval: Duration.seconds(1),
  refreshAssignmentsInterval: Duration.seconds(2),
  runnerHealthCheckInterval: Duration.seconds(5),
  shardLockRefreshInterval: Duration.seconds(5),
  shardLockExpiration: Duration.seconds(15),
  entityTerminationTimeout: Duration.millis(500)
}

/** The per-key window and its margin: a new owner waits this long before its first request. */
const keyWindow = Duration.millis(1_025)

/**
 * The wait before the next pass of an account after `refusals` passes in a row whose
 * credentials the exchange refused: `interval` at first, doubled with each refusal, at most an
 * hour (never less than `interval`).
 *
 * @since 0.1.0
 * @category scheduling
 */
export const refusedBackoff = (interval: number, refusals: number): number =>
  refusals <= 1 ? interval : Math.max(interval, Math.min(interval * 2 ** (refusals - 1), 3_600_000))

/** The annotations of a pass's end: per kind, the requests it sent and the bills it added. */
const passFigures = (outcomes: ReadonlyArray<AccountPass.KindOutcome>): Record<string, number> =>
  Object.fromEntries(
    outcomes.flatMap((outcome) => [
      [`${outcome.kind}_requests`, outcome.requests],
      [`${outcome.kind}_added`, outcome.added]
    ])
  )

const entityLayer = (
  options: FleetRunnerOptions,
  egress: ReadonlyArray<Egress.EgressRoute>,
  stopping: Deferred.Deferred<void>
) =>
  AccountEntity.toLayer(
    Effect.gen(function* () {
      const address = yield* Entity.CurrentAddress
      const runner = yield* Entity.CurrentRunnerAddress
      const entityId = address.entityId
      // Each pass names its account; a message older than that has the label as its entity id.
      let label: string = entityId
      const owner = `${runner.host}:${runner.port}`
      const accounts = yield* FleetAccounts
      const context = yield* Effect.context<AccountPass.PassServices>()
      // Once the runner stops, no grant is given: a pass sends nothing more (internal/stopping.ts).
      const withGrant = Stopping.withGrantUntil(stopping, Context.get(context, AddressBudget).withGrant)
      // An account with egress addresses leaves from its own one, under that address's budget;
      // the pass's grants are watched for a slow one (internal/steadyStretch.ts).
      const routed = (watch: SteadyStretch.Watch) => {
        const route = Egress.routeOf(label, egress)
        const watched = SteadyStretch.watched(withGrant, watch)
        return route === undefined
          ? Context.add(context, AddressBudget, AddressBudget.of({ withGrant: watched }))
          : context.pipe(
              Context.add(HttpClient.HttpClient, route.client),
              Context.add(
                AddressBudget,
                AddressBudget.of({ withGrant: (operation) => watched(operation, route.address) })
              )
            )
      }
      // How many intervals apart this account's steady passes are while its address is short.
      let stretch = 1
      const perKey = yield* KeyLimiter.make(options.maxRps ?? 10)
      const interval = Duration.toMillis(options.interval ?? Duration.minutes(1))
      // A new owner cannot see the requests the previous owner sent in its last window.
      const firstRequest = (yield* Effect.clockWith((clock) => clock.currentTimeMillis)) + Duration.toMillis(keyWindow)
      yield* Effect.addFinalizer(() => Effect.ignore(accounts.release(label, owner)))

      // Where the next pass is due when a pass fails before it can say (the database is away):
      // the reconciler's round, so that such a loop neither spins nor waits an interval.
      const retryAfter = Math.min(interval, 5_000)

      // One pass of the account, after its due time: the next pass it sets, or undefined when the
      // account's loop ends (the account was removed). `expected` is how long after its
      // beginning this pass expects the next to be due (0: at once): written with the claim, so
      // that a runner taking the account over after a crash waits for it, and again at the end
      // only when the pass ended otherwise (a steady pass writes nothing of its own).
      const passOf = (request: PassRequest, expected: number) =>
        Effect.gen(function* () {
          const wait =
            Math.max(request.at, firstRequest) - (yield* Effect.clockWith((clock) => clock.currentTimeMillis))
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          // A runner that stops (or found the store newer than it knows) begins no pass: the
          // pass waits for the cluster to end it, its message unprocessed for the next owner.
          if (yield* Deferred.isDone(stopping)) return yield* Effect.never
          const openedAt = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          // Opened and claimed in one statement: `status` names this runner from here on.
          const opened = yield* Effect.either(accounts.open(label, owner, openedAt + expected))
          if (opened._tag === "Left") {
            if (opened.left._tag === "FleetAccountUnknown") return undefined // removed: its loop ends here
            yield* Effect.logWarning(`pass of ${label}: ${opened.left.message}`)
            // Credentials this runner cannot open show in `status`, not only in its log.
            const unopened = opened.left.message
            yield* Effect.ignore(accounts.record(label, { funding: unopened, spot: unopened, contract: unopened }))
            const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
            return new PassRequest({ at: now + interval, label })
          }
          // Read by the process test and the bench (at DEBUG): a pass's begin and end bracket its
          // store leases, and its end says what each kind sent and stored.
          yield* Effect.logDebug("pass begins")
          // A pass ends about an interval after it begins, or when all three kinds are due: a
          // walk still going on then goes on in the next pass, and the kinds it finished are read
          // again at their interval (a walk of many pages takes many intervals at a busy address).
          const began = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          // When a pass that goes on with some kinds is due to read all three again.
          const allDue = request.kinds === undefined ? undefined : (request.allAt ?? request.at + interval)
          const until = allDue ?? began + interval
          const watch: SteadyStretch.Watch = { short: false }
          const outcomes = yield* AccountPass.run(opened.right.account, opened.right.credentials, perKey, {
            pagesPerPass: options.pagesPerPass ?? AccountPass.defaultPagesPerPass,
            concurrency: options.concurrency,
            lease: options.lease,
            config: options.config,
            kinds: request.kinds,
            until
          }).pipe(
            Effect.provide(routed(watch)),
            Effect.onExit((exit) => {
              if (!Exit.isSuccess(exit)) {
                // Cut short: the account moves to another runner, or this one stops.
                return Cause.isInterruptedOnly(exit.cause)
                  ? Effect.logInfo("pass ends").pipe(Effect.annotateLogs("interrupted", true))
                  : Effect.logWarning(`pass ends: it failed: ${Cause.squash(exit.cause)}`)
              }
              // One line per pass: a failed one at warning level, with each kind's reason; one
              // that stored bills at INFO; one that found nothing at DEBUG (600 current accounts
              // would otherwise log 600 lines a minute that say nothing).
              const failed = exit.value.filter((outcome) => outcome.error !== undefined)
              const added = exit.value.reduce((sum, outcome) => sum + outcome.added, 0)
              return (
                failed.length === 0
                  ? added > 0
                    ? Effect.logInfo("pass ends")
                    : Effect.logDebug("pass ends")
                  : Effect.logWarning(
                      `pass ends: ${failed.map((outcome) => `${outcome.kind} failed: ${outcome.error}`).join("; ")}`
                    )
              ).pipe(Effect.annotateLogs(passFigures(exit.value)))
            })
          )
          // Credentials the exchange refuses are not tried at every interval: the wait doubles
          // with each refused pass, up to an hour. The count lives in the account's row: a runner
          // restarts or hands over.
          const refusals = yield* accounts.record(
            label,
            AccountPass.errorsOf(outcomes),
            outcomes.some((outcome) => outcome.refused)
          )
          const more = AccountPass.unfinished(outcomes)
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          // A pass of all three kinds whose finished kinds found nothing new, at an address whose
          // budget was short, reads them again further off (internal/steadyStretch.ts); a walk
          // that goes on is not held back by it.
          if (request.kinds === undefined) {
            const finished = outcomes.filter((outcome) => outcome.done)
            const steady =
              finished.length > 0 &&
              finished.every((outcome) => outcome.added === 0) &&
              outcomes.every((outcome) => outcome.error === undefined)
            stretch = SteadyStretch.next(stretch, steady, watch.short)
          }
          const apart = Math.max(refusedBackoff(interval, refusals), interval * stretch)
          // The kinds this pass finished are due an interval (or its stretch) after the last pass
          // of all three began, however long another kind's walk goes on (a new account's futures
          // walk proves its empty years page after page, while its funding and spot bills keep coming).
          const allAt = allDue ?? began + apart
          const next =
            more.length > 0
              ? now < allAt
                ? new PassRequest({ at: now, label, kinds: more, allAt })
                : new PassRequest({ at: now, label })
              : new PassRequest({ at: request.kinds === undefined ? now + apart : allAt, label })
          // What `open` wrote is the truth to within this pass's length unless the pass ended
          // otherwise than it expected: then the row is told (a hand-over waits for it).
          if (next.at - now !== expected) {
            // Not written, a runner taking the account over may pass it early (or an interval
            // late, after a walk that goes on): time, never a bill.
            yield* Effect.catchAll(accounts.scheduleNextPass(label, next.at), (error) =>
              Effect.logWarning(`cannot record when the next pass of ${label} is due: ${error.message}`)
            )
          }
          return next
        }).pipe(
          Effect.catchAll((error) =>
            Effect.zipRight(
              Effect.logWarning(`pass of ${label}: ${error.message}`),
              Effect.clockWith((clock) =>
                Effect.map(clock.currentTimeMillis, (now) => new PassRequest({ at: now + retryAfter, label }))
              )
            )
          ),
          Effect.annotateLogs({ account: label, runner: owner }),
          // Each pass its own trace: the loop that runs them does not end while the account is here.
          Effect.withSpan("FleetRunner.pass", { root: true, attributes: { account: label } })
        )

      // The account's passes, one after another in one loop, for as long as the entity lives
      // here: the cluster delivers the loop's message once, and a pass costs it nothing (the next
      // pass is not a message written, delivered and answered; issue 38, section 3). The loop's
      // message stays unprocessed while it runs, so the reconciler leaves the account alone, and
      // a runner that stops or dies leaves it to the account's next owner, which starts the loop
      // again where the row says the next pass is due.
      const loop = (first: PassRequest) =>
        Effect.gen(function* () {
          label = first.label ?? entityId
          const due = yield* Effect.orElseSucceed(accounts.nextPassOf(label), () => undefined)
          let request: PassRequest | undefined = new PassRequest({ ...first, at: Math.max(first.at, due ?? 0) })
          // The loop's first pass expects nothing: until it ends, the next pass is due at once.
          let expected = 0
          while (request !== undefined) {
            const current: PassRequest = request
            request = yield* passOf(current, expected)
            expected = request === undefined ? 0 : request.kinds === undefined ? interval * stretch : 0
          }
        })

      // One loop per account: a second message of the account (the reconciler's beside a pass
      // delivered again, or one written by an older runner) ends at once, and with it its chain.
      let looping = false
      const pass = (request: PassRequest) =>
        Effect.suspend(() => {
          if (looping) return Effect.void
          looping = true
          return Effect.ensuring(
            loop(request),
            Effect.sync(() => {
              looping = false
            })
          )
        })

      return AccountEntity.of({ Pass: (envelope) => pass(envelope.payload) })
    }),
    // Messages run side by side, so that a second one of the account finds its loop and ends
    // (one at a time, it would wait behind the loop for good). The loop keeps its entity, and
    // with it the stretch, for as long as the account is on this runner.
    { concurrency: "unbounded" }
  )

const reconciler = (options: FleetRunnerOptions) =>
  Singleton.make(
    "BillsFleet/reconcile",
    Effect.gen(function* () {
      const accounts = yield* FleetAccounts
      const makeClient = yield* AccountEntity.client
      const every = Duration.min(options.interval ?? Duration.minutes(1), Duration.seconds(5))
      // One account that cannot be scheduled never holds back another, and the purge runs
      // whatever the sends did.
      const round = Effect.gen(function* () {
        const due = yield* PendingPasses.unscheduled
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        yield* Effect.forEach(
          due,
          (label) =>
            makeClient(entityIdOf(label))
              .Pass(new PassRequest({ at: now, label }), { discard: true })
              .pipe(
                Effect.catchAllCause((cause) =>
                  Effect.logWarning(`cannot schedule a pass of ${label}`, cause).pipe(
                    Effect.zipRight(
                      Effect.ignore(
                        accounts.record(
                          label,
                          Object.fromEntries(
                            BillKind.literals.map((kind) => [
                              kind,
                              "its pass cannot be scheduled (see the runners' log)"
                            ])
                          )
                        )
                      )
                    )
                  )
                )
              ),
          { discard: true }
        )
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("fleet reconciliation failed", cause)),
        Effect.zipRight(
          PendingPasses.purgeProcessed.pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("purging processed passes failed", cause))
          )
        )
      )
      yield* Effect.repeat(round, Schedule.spaced(every))
    })
  )

/**
 * The failures of a runner's layer.
 *
 * @since 0.3.0
 * @category models
 */
export type FleetRunnerError =
  | FleetUnavailable
  | FleetNeedsPostgres
  | FleetNotFound
  | FleetPortUnavailable
  | StoreError
  | FleetObservability.MetricsServerUnavailable

/**
 * One runner for the lifetime of the layer. Closing it (SIGTERM in `bills fleet run`) hands
 * its accounts over: passes in flight stop after their last committed page, their messages stay
 * unprocessed, and the accounts' next owners deliver them.
 *
 * A runner that finds the store's schema newer than its release knows (a runner of a later
 * release migrated it) stops its work at once and logs one line naming both versions; closing
 * the layer then hands its accounts over. {@link launch} closes it for you and fails with
 * `StoreTooNew`: use it unless the layer's lifetime is your app's.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: FleetRunnerOptions): Layer.Layer<never, FleetRunnerError, FleetCipher | AddressBudget> =>
  Layer.unwrapEffect(Effect.map(Deferred.make<StoreTooNew>(), (tooNew) => layerWith(options, tooNew)))

/**
 * Runs one runner until it is interrupted (closing it hands its accounts over, as closing
 * {@link layer} does) or until it finds the store's schema newer than its release knows: then it
 * hands its accounts over to the runners that know it and fails with `StoreTooNew` (`bills fleet
 * run` exits 1 with its message). An upgrade one runner at a time relies on it: see
 * docs/many-accounts.md, "How to upgrade a fleet".
 *
 * @since 0.3.0
 * @category running
 */
export const launch = (
  options: FleetRunnerOptions
): Effect.Effect<never, FleetRunnerError | StoreTooNew, FleetCipher | AddressBudget> =>
  Effect.scoped(
    Effect.gen(function* () {
      const tooNew = yield* Deferred.make<StoreTooNew>()
      yield* Layer.build(layerWith(options, tooNew))
      return yield* Effect.flatMap(Deferred.await(tooNew), Effect.fail)
    })
  )

const layerWith = (
  options: FleetRunnerOptions,
  tooNew: Deferred.Deferred<StoreTooNew>
): Layer.Layer<never, FleetRunnerError, FleetCipher | AddressBudget> => {
  const host = options.host ?? "127.0.0.1"
  const port = options.port ?? 34431
  const shardingConfig = { ...defaultSharding, ...options.sharding }
  const cluster = NodeClusterSocket.layer({
    storage: "sql",
    shardingConfig: {
      ...shardingConfig,
      runnerAddress: Option.some(RunnerAddress.RunnerAddress.make({ host, port }))
    }
  })
  const shardLayout: FleetObservability.ShardLayout = {
    groups: shardingConfig.assignedShardGroups ?? ["default"],
    shardsPerGroup: shardingConfig.shardsPerGroup ?? 300
  }
  const observed =
    options.metrics === undefined
      ? Layer.empty
      : FleetObservability.layerServer(
          options.metrics,
          FleetObservability.runnerReadiness(shardLayout),
          FleetObservability.refreshAccounts(shardLayout)
        )
  const addresses = options.localAddresses ?? []
  return Layer.unwrapEffect(
    Effect.map(FleetDatabase.postgres(options.db), (target) => {
      // The runner stops its work on a cluster that shuts down, and on a store found newer than
      // this release knows (internal/storeWatch.ts).
      const accounts = Layer.unwrapScoped(
        Effect.gen(function* () {
          const egress = yield* Egress.routes(addresses)
          const stopping = yield* Stopping.signal
          yield* StoreWatch.watch(target.display, `${host}:${port}`, stopping, tooNew)
          return entityLayer(options, egress, stopping)
        })
      )
      /** A failure of the database while the runner sets up, in the driver's own words. */
      const unavailable = (error: { readonly message: string; readonly cause?: unknown }) =>
        new FleetUnavailable({ target: target.display, reason: driverReason(error) })
      // The cluster's socket that cannot listen is the runner's port, not the database.
      const clusterFailure = (error: { readonly _tag: string; readonly message: string; readonly cause?: unknown }) =>
        error._tag === "SocketServerError"
          ? new FleetPortUnavailable({ host, port, reason: driverReason({ message: "", cause: error.cause }) })
          : unavailable(error)
      // After the cluster's tables: the index of pending passes goes on one of them.
      const indexed = Layer.effectDiscard(Effect.mapError(PendingPasses.indexPending, unavailable))
      const runner = Layer.mergeAll(accounts, reconciler(options), observed, indexed).pipe(
        Layer.provide(Layer.mapError(cluster, clusterFailure)),
        Layer.provide(FleetDatabase.accounts(options.db)),
        Layer.provide(NodeHttpClient.layerUndici)
      )
      // The times runners compare (when a pass is due, until when a lease holds) come from one
      // clock; runners started together set the database up one after the other.
      return DatabaseClock.around(OneAtATime.around(runner, unavailable)).pipe(
        Layer.provide(
          Layer.effect(SqlClient.SqlClient, Effect.map(SqlClient.SqlClient, ReservedInOrder.make)).pipe(
            Layer.provide(FleetDatabase.sql(options.db))
          )
        )
      )
    })
  )
}

/**
 * Why `address` cannot be an egress address of this machine (`--local-address`), or `undefined`
 * when it can: an IP address a socket can be bound to. A runner given one it cannot use would
 * fail every request from it, so the command line checks each before the runner starts.
 *
 * @since 0.2.0
 * @category egress
 */
export const unusableAddress: (address: string) => Effect.Effect<string | undefined> = Egress.unusable

/**
 * Why this process cannot listen on `host:port` now (`listen EADDRINUSE: …`, `EADDRNOTAVAIL`), or
 * `undefined` when it can: the command line asks it of a runner's cluster and metrics addresses
 * before the runner joins, so that a port taken stops it in one line with no shard taken.
 *
 * @since 0.2.0
 * @category checks
 */
export const listenProblem: (host: string, port: number) => Effect.Effect<string | undefined> = ListenCheck.unlistenable
