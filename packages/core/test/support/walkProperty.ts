/**
 * What the funding and spot stream properties share: the arbitrary history and query, the
 * bills that arrive while a walk runs, and the exchange the walk runs against.
 */
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import type * as Layer from "effect/Layer"
import type { BillsApi } from "../../src/index.js"
import { type Account, FakeExchange, Prng, type WireBillOf } from "../../src/testing/index.js"
import { epoch, freeMillisecond, type Shape } from "./billScenarios.js"
import { fakeStack } from "./fakeStack.js"

/**
 * Parameters of every stream property run: a fixed seed, so that a run is the same on every
 * machine and a failure is replayed by running again; `FC_SEED=<n>` explores other seeds (the
 * seed in use is in fast-check's failure report).
 */
export const propertyParameters = (numRuns: number, defaultSeed: number): fc.Parameters<unknown> => {
  const fromEnv = process.env.FC_SEED
  return { numRuns, seed: fromEnv === undefined || fromEnv === "" ? defaultSeed : Number(fromEnv) }
}

/**
 * Uniform over [0, 1]: doubles are drawn by bit pattern and biased to the ends, which would
 * make most windows empty.
 */
export const position = fc.noBias(fc.integer({ min: 0, max: 10_000 })).map((n) => n / 10_000)

/** A history: small ones mostly, up to 5,000 bills, with a crowded millisecond now and then. */
export const shapeWithCrowd = (crowdSize: { readonly min: number; readonly max: number }): fc.Arbitrary<Shape> =>
  fc.record({
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    count: fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: 400 }), weight: 3 },
      { arbitrary: fc.noBias(fc.integer({ min: 400, max: 5000 })), weight: 1 }
    ),
    maxGroup: fc.constantFrom(1, 5, 30, 99),
    maxGap: fc.constantFrom(1, 3, 1000),
    crowd: fc.option(fc.record({ size: fc.integer(crowdSize), position }), { nil: undefined, freq: 3 })
  })

/**
 * A history whose same-millisecond groups come close to the page limit (100) in adjacent
 * milliseconds, without a crowd: pages then end inside a group again and again, which is where
 * the walk must carry the ids it emitted at the edge. Uniform group sizes reach this too rarely.
 */
export const shapeNearLimit: fc.Arbitrary<Shape> = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  count: fc.noBias(fc.integer({ min: 101, max: 600 })),
  maxGroup: fc.noBias(fc.integer({ min: 60, max: 99 })),
  maxGap: fc.constantFrom(1, 2),
  crowd: fc.constant(undefined)
})

/**
 * A walk to check: the history, the exchange's conventions, the query (its bounds drawn by
 * `bound`, its bizType now and then one of `bizTypes`), arrivals and faults.
 */
export const walkCase = <Bound, BizType extends string>(
  shape: fc.Arbitrary<Shape>,
  bound: fc.Arbitrary<Bound>,
  bizTypes: readonly [BizType, BizType]
) =>
  fc.record({
    shape,
    order: fc.constantFrom("newest-first" as const, "oldest-first" as const),
    bounds: fc.constantFrom("inclusive" as const, "exclusive" as const),
    coinId: fc.option(fc.constantFrom(1, 2, 7), { nil: undefined, freq: 2 }),
    bizType: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      { arbitrary: fc.constantFrom(...bizTypes), weight: 1 }
    ),
    from: fc.option(bound, { nil: undefined }),
    to: fc.option(bound, { nil: undefined }),
    /** Every this many bills, new bills arrive, and now and then a late one inside the window. */
    appendEvery: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
    faults: fc.option(
      fc.record({ rate: fc.double({ min: 0.05, max: 0.3, noNaN: true }), seed: fc.integer({ min: 1, max: 10_000 }) }),
      { nil: undefined, freq: 3 }
    ),
    /** The interface version both sides speak. */
    apiVersion: fc.constantFrom("v2" as const, "v3" as const),
    /** Requests in flight: one walk, a few, or the default. */
    concurrency: fc.constantFrom(1, 3, undefined),
    /**
     * A round trip with jitter, so that concurrent requests complete out of order. Kept to a few
     * milliseconds: these properties run on the real clock, for their retries.
     */
    latency: fc.option(
      fc.record({
        millis: fc.integer({ min: 0, max: 1 }),
        jitterMillis: fc.integer({ min: 1, max: 4 }),
        seed: fc.integer({ min: 1, max: 10_000 })
      }),
      { nil: undefined, freq: 4 }
    )
  })

/** What `walkCase` draws. */
export interface WalkCase {
  readonly apiVersion: "v2" | "v3"
  readonly order: "newest-first" | "oldest-first"
  readonly bounds: "inclusive" | "exclusive"
  readonly appendEvery: number | undefined
  readonly faults: { readonly rate: number; readonly seed: number } | undefined
  readonly concurrency: number | undefined
  readonly latency: { readonly millis: number; readonly jitterMillis: number; readonly seed: number } | undefined
  readonly shape: Shape
}

/**
 * Bills that arrive while a walk over `[from, to)` runs: every `appendEvery` bills the stream
 * yields, 3 generated ones, and (up to `maxLate`) a late booking at a free millisecond inside
 * the window, which shifts everything after it. `late` collects the late bookings, which the
 * walk may list at most once.
 */
export const arrivals = <A extends Account>(options: {
  readonly account: A
  readonly walk: WalkCase
  readonly bills: ReadonlyArray<WireBillOf[A]>
  readonly from: number | undefined
  readonly to: number | undefined
  readonly maxLate: number
  readonly lateBill: (n: number, cTime: number) => WireBillOf[A]
}) => {
  const { account, walk, bills, maxLate, lateBill } = options
  const prng = Prng.make(walk.shape.seed + 1)
  const late: Array<WireBillOf[A]> = []
  const lastMillisecond = Number(bills[bills.length - 1]?.cTime ?? epoch)
  const arrive = (count: number): Effect.Effect<void, never, FakeExchange> =>
    walk.appendEvery === undefined || count % walk.appendEvery !== 0
      ? Effect.void
      : Effect.gen(function* () {
          const exchange = yield* FakeExchange
          yield* exchange.appendGenerated(account, 3)
          const t = freeMillisecond([...bills, ...late], prng, options.from ?? epoch, options.to ?? lastMillisecond + 1)
          if (t !== undefined && late.length < maxLate) {
            const bill = lateBill(late.length, t)
            late.push(bill)
            yield* exchange.append(account, [bill])
          }
        })
  return { late, arrive }
}

/** The client over a fake exchange with `bills`, the walk's conventions and faults, and quick retries. */
export const walkStack = <A extends Account>(
  account: A,
  bills: ReadonlyArray<WireBillOf[A]>,
  walk: WalkCase
): Layer.Layer<BillsApi | FakeExchange> =>
  fakeStack({
    apiVersion: walk.apiVersion,
    exchange: {
      bills: { [account]: bills },
      order: walk.order,
      bounds: walk.bounds,
      rateLimit: false,
      ...(walk.latency === undefined ? {} : { latency: walk.latency }),
      ...(walk.faults === undefined ? {} : { faults: { random: walk.faults } })
    },
    config: { maxAttempts: 12, retryBaseDelay: 1, maxRetryDelay: 2 },
    rateLimit: false
  })
