/**
 * The per-address budget: the exchange counts requests per source address apart from its
 * per-key limit, so every runner process that uses an address must draw from one budget.
 * `layerRedis` keeps it in Redis, exact under a sliding window across processes (see
 * `internal/slidingLog.ts`); `layerMemory` keeps it in the process, right only for a process
 * alone on its address; `layerNone` grants everything.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import { BillsRateLimiter, type OperationName } from "@account-bills/core"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Schedule from "effect/Schedule"
import { Redis } from "ioredis"
import { BudgetUnavailable } from "./FleetErrors.js"
import * as FleetMetrics from "./FleetMetrics.js"
import { grantScript, logKey } from "./internal/slidingLog.js"

/**
 * What the budget offers.
 *
 * @since 0.1.0
 * @category models
 */
export interface AddressBudgetShape {
  /**
   * Waits for one grant of `operation` on this address; resolves with the grant's time (epoch
   * ms, by the budget's clock).
   */
  readonly take: (operation: OperationName) => Effect.Effect<number>
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
   * Added to the window so that a request granted just in time cannot reach the server inside
   * the window of an earlier one that was delayed in transit. Default 25 ms.
   */
  readonly margin?: Duration.DurationInput | undefined
  /** The address the budget is for, as Redis keys name it. Default `default`. */
  readonly address?: string | undefined
}

const spacingOf = (options: AddressBudgetOptions) =>
  Duration.toMillis(options.window ?? Duration.seconds(1)) + Duration.toMillis(options.margin ?? Duration.millis(25))

const counted = (operation: OperationName, waited: boolean) =>
  waited ? Metric.increment(FleetMetrics.forOperation(FleetMetrics.budgetWaits, operation)) : Effect.void

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
    AddressBudget.of({ take: () => Effect.clockWith((clock) => clock.currentTimeMillis) })
  )

  /** A budget in this process: right only when no other process uses the address. */
  static readonly layerMemory = (options: AddressBudgetOptions): Layer.Layer<AddressBudget> =>
    Layer.effect(
      AddressBudget,
      Effect.map(
        BillsRateLimiter.make({ limit: options.limit, window: spacingOf(options), margin: 0, arrival: "answer" }),
        (limiter) =>
          AddressBudget.of({
            take: (operation) =>
              Effect.gen(function* () {
                const asked = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
                yield* limiter.take(operation)
                const granted = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
                yield* counted(operation, granted > asked)
                return granted
              })
          })
      )
    )

  /**
   * A budget in Redis at `url`, shared by every process that uses the same Redis and address.
   * A Redis that cannot be reached fails the layer; one that fails later is retried, never
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
        const redis = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: async () => {
              const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true })
              await client.connect()
              return client
            },
            catch: (cause) => new BudgetUnavailable({ target, reason: String((cause as Error)?.message ?? cause) })
          }),
          (client) => Effect.promise(() => client.quit().catch(() => "")).pipe(Effect.asVoid)
        )
        const limit = Math.max(1, Math.floor(options.limit))
        const spacing = spacingOf(options)
        const address = options.address ?? "default"
        const attempt = (key: string, member: string) =>
          Effect.tryPromise({
            try: () => redis.eval(grantScript, 1, key, limit, spacing, member) as Promise<[number, number]>,
            catch: (cause) => new BudgetUnavailable({ target, reason: String((cause as Error)?.message ?? cause) })
          })
        const take = (operation: OperationName) =>
          Effect.gen(function* () {
            const key = logKey("bills:budget", address, operation)
            const member = Crypto.randomUUID()
            let waited = false
            while (true) {
              // A Redis that fails is asked again, never bypassed: no grant, no request.
              const [granted, value] = yield* attempt(key, member).pipe(
                Effect.tapError((error) => Effect.logWarning(error.message)),
                Effect.retry(
                  Schedule.exponential(Duration.millis(50)).pipe(Schedule.union(Schedule.spaced("1 second")))
                ),
                Effect.orDie
              )
              if (granted === 1) {
                yield* counted(operation, waited)
                return value
              }
              waited = true
              yield* Effect.sleep(Duration.millis(Math.max(1, value)))
            }
          }).pipe(Effect.withSpan("AddressBudget.take", { attributes: { operation } }))
        return AddressBudget.of({ take })
      })
    )
}
