/**
 * The per-address budget: the exchange counts requests per source address apart from its
 * per-key limit, so every runner process that uses an address must draw from one budget.
 * `layerRedis` keeps it in Redis, exact under a sliding window across processes (see
 * `internal/slidingLog.ts`); `layerMemory` keeps it in the process, right only for a process
 * alone on its address; `layerNone` grants everything.
 *
 * A grant counts from the moment it is given until one window after its request has finished
 * (the request reached the exchange somewhere in between), so at most `limit` requests arrive
 * in any window at the exchange, whatever the delays in transit. The price: each grant holds
 * its place one round trip longer than the window, so on an address kept busy the budget is
 * used at `window / (window + round trip)` of its limit.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import { BillsRateLimiter, type BillsRateLimiterShape, type OperationName } from "@account-bills/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { Redis } from "ioredis"
import { BudgetUnavailable } from "./FleetErrors.js"
import * as FleetMetrics from "./FleetMetrics.js"
import * as RedisScript from "./internal/redisScript.js"
import { grantScript, logKey, releaseScript, stateKey } from "./internal/slidingLog.js"

// Sent by their digests: the text goes only to a Redis that has not cached it.
const grantLua = RedisScript.make(grantScript)
const releaseLua = RedisScript.make(releaseScript)

/**
 * What the budget offers.
 *
 * @since 0.1.0
 * @category models
 */
export interface AddressBudgetShape {
  /**
   * Runs one request of `operation` under a grant of the budget of `address` (a runner that
   * spreads its accounts over several egress addresses draws from each address's own budget);
   * without one, the budget's own `address`.
   */
  readonly withGrant: (
    operation: OperationName,
    address?: string | undefined
  ) => <A, E, R>(request: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Asks the budget's server whether it answers (a runner's `/readyz`); a budget kept in the
   * process has none and leaves it out.
   */
  readonly ping?: Effect.Effect<void, BudgetUnavailable> | undefined
}

/**
 * Settings of a budget.
 *
 * @since 0.1.0
 * @category models
 */
export interface AddressBudgetOptions {
  /** Requests per window and operation on this address. */
  readonly limit: number
  /** Default 1 second. */
  readonly window?: Duration.DurationInput | undefined
  /**
   * Added to the window. A grant already counts until its request has finished, so no delay in
   * transit can bring two arrivals closer than the window; the default 2 ms covers the
   * millisecond rounding of the budget's and the exchange's clocks.
   */
  readonly margin?: Duration.DurationInput | undefined
  /**
   * The address the budget is for when a grant names none, as Redis keys name it. Default
   * `default`.
   */
  readonly address?: string | undefined
  /**
   * The longest a request may take (the client's timeout, with room): a grant of a process that
   * died with its request in flight counts this long. Default 30 s.
   */
  readonly hold?: Duration.DurationInput | undefined
}

/** How long a release keeps trying a Redis that does not answer. */
const releaseTimeout = Duration.seconds(2)

/**
 * How long a finished request's release waits for a grant of this process on the same log to
 * carry it to Redis, before it goes alone. A release used to be a round trip of its own per
 * request, with two fibers for its deadline (issue 38, section 3, seventh round). While it waits,
 * the request's entry counts as in flight: other processes see its place held this much longer
 * at most, and this process's own next grant on the log applies it before it counts.
 */
const releaseDelay = 20

const spacingOf = (options: AddressBudgetOptions) =>
  Duration.toMillis(options.window ?? Duration.seconds(1)) + Duration.toMillis(options.margin ?? Duration.millis(2))

const waited = (operation: OperationName) =>
  Metric.increment(FleetMetrics.forOperation(FleetMetrics.budgetWaits, operation))

/**
 * The per-address budget.
 *
 * @since 0.1.0
 * @category tags
 */
export class AddressBudget extends Context.Tag("@account-bills/fleet/AddressBudget")<
  AddressBudget,
  AddressBudgetShape
>() {
  /** Grants everything: no budget per address. */
  static readonly layerNone: Layer.Layer<AddressBudget> = Layer.succeed(
    AddressBudget,
    AddressBudget.of({ withGrant: () => (request) => request })
  )

  /** A budget in this process: right only when no other process uses the address. */
  static readonly layerMemory = (options: AddressBudgetOptions): Layer.Layer<AddressBudget> =>
    Layer.effect(
      AddressBudget,
      Effect.gen(function* () {
        // Without `observe`, the limiter counts a permit until its request has finished.
        const limiterOf = BillsRateLimiter.make({
          limit: options.limit,
          window: spacingOf(options),
          margin: 0,
          arrival: "answer"
        })
        const fallback = options.address ?? "default"
        const limiters = yield* SynchronizedRef.make(new Map<string, BillsRateLimiterShape>())
        // One limiter per address, made on its first grant.
        const limiterFor = (address: string) =>
          SynchronizedRef.modifyEffect(limiters, (map) => {
            const found = map.get(address)
            return found !== undefined
              ? Effect.succeed([found, map] as const)
              : Effect.map(limiterOf, (made) => [made, new Map(map).set(address, made)] as const)
          })
        return AddressBudget.of({
          withGrant: (operation, address) => (request) =>
            Effect.gen(function* () {
              const limiter = yield* limiterFor(address ?? fallback)
              const asked = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
              let granted = asked
              const result = yield* limiter.withPermit(operation)(
                Effect.zipRight(
                  Effect.clockWith((clock) =>
                    Effect.sync(() => {
                      granted = clock.unsafeCurrentTimeMillis()
                    })
                  ),
                  request
                )
              )
              if (granted > asked) yield* waited(operation)
              return result
            })
        })
      })
    )

  /**
   * A budget in Redis at `url`, shared by every process that uses the same Redis and address.
   * A Redis that cannot be reached fails the layer; one that fails later is asked again, never
   * bypassed: no request goes out without a grant.
   */
  static readonly layerRedis = (
    url: string,
    options: AddressBudgetOptions
  ): Layer.Layer<AddressBudget, BudgetUnavailable> =>
    Layer.scoped(
      AddressBudget,
      Effect.gen(function* () {
        const target = url.replace(/\/\/[^@/]*@/, "//***@")
        // The connection's own failure (ECONNREFUSED, …), which says more than a command's
        // "max retries" or "Connection is closed" does.
        let lastConnectionError: string | undefined
        const unavailable = (cause: unknown) =>
          new BudgetUnavailable({
            target,
            reason: lastConnectionError ?? (cause instanceof Error ? cause.message : String(cause))
          })
        const runFork = Runtime.runFork(yield* Effect.runtime<never>())
        const clock = yield* Effect.clock
        // Per log, the id of the Redis state this process has put its own grants into (see
        // `internal/slidingLog.ts`). A reconnection forgets them all: what Redis kept is unknown.
        const known = new Map<string, string>()
        const redis = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: async () => {
              const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 })
              let connected = false
              // One line when the budget is lost and one when it is back, however many
              // reconnections ioredis tries in between (without a listener it prints each).
              let lost = false
              client.on("error", (error: Error) => {
                lastConnectionError = error.message
                if (lost || !connected) return
                lost = true
                runFork(
                  Effect.logWarning(
                    `the shared budget at ${target} is lost (${error.message}): no request goes out until it is back`
                  )
                )
              })
              client.on("ready", () => {
                lastConnectionError = undefined
                known.clear()
                if (!lost) return
                lost = false
                runFork(Effect.logWarning(`the shared budget at ${target} is back`))
              })
              await client.connect()
              connected = true
              return client
            },
            catch: unavailable
          }),
          // Closed at once: a Redis that is away would keep a polite QUIT (and its reconnections)
          // waiting, and the process with it.
          (client) =>
            Effect.promise(() => client.quit().catch(() => "")).pipe(
              Effect.timeout("1 second"),
              Effect.ignore,
              Effect.ensuring(Effect.sync(() => client.disconnect(false)))
            )
        )
        const limit = Math.max(1, Math.floor(options.limit))
        const spacing = spacingOf(options)
        const hold = Duration.toMillis(options.hold ?? Duration.seconds(30))
        const address = options.address ?? "default"
        // A Redis that fails is asked again, never bypassed: no grant, no request.
        const persist = <A>(call: () => Promise<A>) =>
          Effect.tryPromise({ try: call, catch: unavailable }).pipe(
            // A lost connection is said once, by the client's listeners; any other failure here.
            Effect.tapError((error) => (redis.status === "ready" ? Effect.logWarning(error.message) : Effect.void)),
            Effect.retry(Schedule.exponential(Duration.millis(50)).pipe(Schedule.union(Schedule.spaced("1 second")))),
            Effect.orDie
          )
        // One waiter of this process at a time asks Redis for a key's grant, the others queue
        // behind it here: hundreds of passes waiting on one address each asked every few
        // milliseconds, and the runners spent on asking the CPU that sending needed.
        const turns = new Map<string, Effect.Semaphore>()
        const turnOf = (key: string) => {
          const existing = turns.get(key)
          if (existing !== undefined) return existing
          const turn = Effect.unsafeMakeSemaphore(1)
          turns.set(key, turn)
          return turn
        }
        // Per log, this process's own grants of the last window: in flight (`undefined`) or
        // finished at (this process's clock). After a loss of Redis's state they go back into
        // the log: they count at the exchange whatever Redis says.
        const own = new Map<string, Map<string, number | undefined>>()
        const ownOf = (key: string) => {
          const existing = own.get(key)
          if (existing !== undefined) return existing
          const made = new Map<string, number | undefined>()
          own.set(key, made)
          return made
        }
        /** (member, age) pairs of the own grants that still count, `-1` for one in flight. */
        const ownGrants = (key: string, now: number) => {
          const pairs: Array<string | number> = []
          for (const [member, finished] of ownOf(key)) {
            if (finished === undefined) pairs.push(member, -1)
            else if (now - finished < spacing) pairs.push(member, Math.max(0, now - finished))
            else ownOf(key).delete(member)
          }
          return pairs
        }
        // A finished grant is kept one window; the older ones go, so the record stays that small.
        const finished = (key: string, member: string, at: number) =>
          Effect.sync(() => {
            const grants = ownOf(key)
            grants.set(member, at)
            for (const [each, end] of grants) if (end !== undefined && at - end >= 2 * spacing) grants.delete(each)
          })
        // Per log, this process's latest grant: while it still counts, the log must hold it.
        const latest = new Map<string, string>()
        const probeOf = (key: string, now: number) => {
          const member = latest.get(key)
          if (member === undefined || !ownOf(key).has(member)) return ""
          const end = ownOf(key).get(member)
          return end === undefined || now - end < spacing ? member : ""
        }
        // Per log, the releases not yet in Redis: the finished requests' members and when each
        // finished, on this process's clock (for one given up on its way, a window after that).
        // They ride with the next grant of the log, or go alone after `releaseDelay`.
        const unreleased = new Map<string, Map<string, number>>()
        const releaseTimers = new Map<string, ReturnType<typeof setTimeout>>()
        // Set when the budget closes: its finalizer sends what waits, and a retry still pending
        // then stops rather than ask a closed connection (and warn) for up to `releaseTimeout`.
        let closed = false
        /** The (member, age) pairs of the releases of a log that wait, aged as of `now`. */
        const releasesOf = (key: string, now: number) => {
          const pairs: Array<string | number> = []
          for (const [member, at] of unreleased.get(key) ?? []) pairs.push(member, now - at)
          return pairs
        }
        /** The releases `pairs` named are in Redis: they wait no more. */
        const released = (key: string, pairs: ReadonlyArray<string | number>) => {
          const waiting = unreleased.get(key)
          if (waiting === undefined) return
          for (let i = 0; i < pairs.length; i += 2) waiting.delete(String(pairs[i]))
          if (waiting.size === 0) unreleased.delete(key)
        }
        // The releases of a log that no grant carried, alone, in one round trip; retried until
        // `releaseTimeout` and then given up (each grant frees itself `hold` after it was given,
        // so giving up only keeps its place longer). Outside any fiber: a release needs none.
        const sendReleases = (key: string, since: number, retryIn: number): Promise<void> => {
          const pairs = closed ? [] : releasesOf(key, clock.unsafeCurrentTimeMillis())
          if (pairs.length === 0) return Promise.resolve()
          return RedisScript.run<number>(redis, releaseLua, 1, [key, spacing, hold, ...pairs]).then(
            () => released(key, pairs),
            (error: unknown) => {
              // A lost connection is said once, by the client's listeners; any other failure here.
              if (redis.status === "ready") runFork(Effect.logWarning(unavailable(error).message))
              if (clock.unsafeCurrentTimeMillis() - since + retryIn > Duration.toMillis(releaseTimeout)) {
                return released(key, pairs)
              }
              return new Promise<void>((resolve) => setTimeout(resolve, retryIn)).then(() =>
                sendReleases(key, since, Math.min(retryIn * 2, 1_000))
              )
            }
          )
        }
        const release = (key: string, member: string, at: number) => {
          const waiting = unreleased.get(key) ?? new Map<string, number>()
          unreleased.set(key, waiting.set(member, at))
          if (releaseTimers.has(key)) return
          releaseTimers.set(
            key,
            setTimeout(() => {
              releaseTimers.delete(key)
              void sendReleases(key, clock.unsafeCurrentTimeMillis(), 50)
            }, releaseDelay)
          )
        }
        // Closing the budget sends what still waits, once, before the connection closes.
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => {
            closed = true
            for (const timer of releaseTimers.values()) clearTimeout(timer)
            releaseTimers.clear()
            const keys = [...unreleased.keys()]
            const now = clock.unsafeCurrentTimeMillis()
            return Promise.allSettled(
              keys.map((key) => RedisScript.run(redis, releaseLua, 1, [key, spacing, hold, ...releasesOf(key, now)]))
            )
          }).pipe(Effect.timeout("1 second"), Effect.ignore)
        )
        const grant = (key: string, member: string, operation: OperationName) =>
          Effect.gen(function* () {
            let first = true
            let restore = !known.has(key)
            while (true) {
              const now = yield* Clock.currentTimeMillis
              const args = [key, stateKey(key), limit, spacing, member, hold, known.get(key) ?? "", member]
              const releases = releasesOf(key, now)
              const [status, value, id] = yield* persist(() =>
                RedisScript.run<[number, number, string]>(redis, grantLua, 2, [
                  ...args,
                  ...(restore
                    ? [1, probeOf(key, now), releases.length / 2, ...releases, ...ownGrants(key, now)]
                    : [0, probeOf(key, now), releases.length / 2, ...releases])
                ])
              )
              // The state is not the one this process put its grants into: again, with them.
              restore = status === 2
              if (restore) continue
              released(key, releases)
              known.set(key, id)
              if (status === 1) {
                return yield* Effect.sync(() => {
                  ownOf(key).set(member, undefined)
                  latest.set(key, member)
                })
              }
              if (first) yield* waited(operation)
              first = false
              yield* Effect.sleep(Duration.millis(value))
            }
          })
        return AddressBudget.of({
          // Once, within a second: a readiness probe must not wait on the client's retries.
          ping: Effect.tryPromise({ try: () => redis.ping(), catch: unavailable }).pipe(
            Effect.timeoutFail({ duration: Duration.seconds(1), onTimeout: () => unavailable("no answer within 1 s") }),
            Effect.asVoid
          ),
          withGrant: (operation, granted) => (request) =>
            Effect.suspend(() => {
              const key = logKey("bills:budget", granted ?? address, operation)
              const member = Crypto.randomUUID()
              // Interrupted while waiting: no grant is left behind but one given in that very
              // instant, and that one frees itself after `hold`.
              return Effect.uninterruptibleMask((restore) =>
                Effect.zipRight(
                  restore(turnOf(key).withPermits(1)(grant(key, member, operation))).pipe(
                    Effect.withSpan("AddressBudget.grant", { attributes: { operation } })
                  ),
                  Effect.onExit(restore(request), (exit) =>
                    // A request given up on its way may still reach the exchange: its grant
                    // counts one more window than its end, apart from the one giving up.
                    Effect.flatMap(Clock.currentTimeMillis, (now) => {
                      const end = Exit.isInterrupted(exit) ? now + spacing : now
                      return Effect.zipRight(
                        finished(key, member, end),
                        Effect.sync(() => release(key, member, end))
                      )
                    })
                  )
                )
              )
            })
        })
      })
    )
}
