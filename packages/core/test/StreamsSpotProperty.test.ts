import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import { BillsApi, type BillsError } from "../src/index.js"
import { FakeExchange, Prng, type SpotWireBill } from "../src/testing/index.js"
import {
  crowdedMilliseconds,
  epoch,
  freeMillisecond,
  lateSpotBill,
  type Shape,
  selected,
  spotBills
} from "./support/billScenarios.js"
import { fakeStack } from "./support/fakeStack.js"
import { collect, expectExactly, expectNoRepeatsWithin, expectTimeOrder } from "./support/streamCheck.js"

// Uniform over [0, 1]: doubles are drawn by bit pattern and biased to the ends, which
// would make most windows empty.
const position = fc.noBias(fc.integer({ min: 0, max: 10_000 })).map((n) => n / 10_000)

/** Where a window bound goes: near a random bill, or near the crowded millisecond. */
const anchor = fc.record({
  at: fc.oneof({ arbitrary: position, weight: 3 }, { arbitrary: fc.constant("crowd" as const), weight: 1 }),
  delta: fc.integer({ min: -1, max: 1 })
})

const shape: fc.Arbitrary<Shape> = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  count: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 400 }), weight: 3 },
    { arbitrary: fc.noBias(fc.integer({ min: 400, max: 5000 })), weight: 1 }
  ),
  maxGroup: fc.constantFrom(1, 5, 30, 99),
  maxGap: fc.constantFrom(1, 3, 1000),
  crowd: fc.option(fc.record({ size: fc.integer({ min: 90, max: 130 }), position }), { nil: undefined, freq: 3 })
})

const spotCase = fc.record({
  shape,
  order: fc.constantFrom("newest-first" as const, "oldest-first" as const),
  bounds: fc.constantFrom("inclusive" as const, "exclusive" as const),
  coinId: fc.option(fc.constantFrom(1, 2, 7), { nil: undefined, freq: 2 }),
  bizType: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 4 },
    { arbitrary: fc.constantFrom("trade_in" as const, "deposit" as const), weight: 1 }
  ),
  from: fc.option(anchor, { nil: undefined }),
  to: fc.option(anchor, { nil: undefined }),
  /** Every this many bills, new bills arrive (and sometimes a late one inside the window). */
  appendEvery: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
  faults: fc.option(
    fc.record({ rate: fc.double({ min: 0.05, max: 0.3, noNaN: true }), seed: fc.integer({ min: 1, max: 10_000 }) }),
    { nil: undefined, freq: 3 }
  )
})

type SpotCase = typeof spotCase extends fc.Arbitrary<infer A> ? A : never

const boundOf = (bills: ReadonlyArray<SpotWireBill>, crowdAt: number | undefined, a: SpotCase["from"]) => {
  if (a === undefined || (a.at === "crowd" && crowdAt === undefined)) return undefined
  const base =
    a.at === "crowd"
      ? (crowdAt ?? epoch)
      : bills.length === 0
        ? epoch
        : Number(bills[Math.floor(a.at * (bills.length - 1))]?.cTime)
  return Math.max(0, base + a.delta)
}

const runCase = (c: SpotCase) => {
  const bills = spotBills(c.shape)
  const crowdAt = c.shape.crowd === undefined ? undefined : Number(bills.find((b) => b.billId.startsWith("9"))?.cTime)
  let from = boundOf(bills, crowdAt, c.from)
  let to = boundOf(bills, crowdAt, c.to)
  if (from !== undefined && to !== undefined && from > to) [from, to] = [to, from]
  const query = { from, to, coinId: c.coinId, bizType: c.bizType }
  const expected = selected(bills, query)
  const crowded = crowdedMilliseconds(expected)
  const prng = Prng.make(c.shape.seed + 1)
  const late: Array<SpotWireBill> = []

  return Effect.gen(function* () {
    const api = yield* BillsApi
    const exchange = yield* FakeExchange
    const lastMillisecond = Number(bills[bills.length - 1]?.cTime ?? epoch)
    const arrive = (count: number) =>
      c.appendEvery === undefined || count % c.appendEvery !== 0
        ? Effect.void
        : Effect.gen(function* () {
            yield* exchange.appendGenerated("spot", 3)
            const t = freeMillisecond([...bills, ...late], prng, from ?? epoch, to ?? lastMillisecond + 1)
            if (t !== undefined && late.length < 5) {
              const bill = lateSpotBill(late.length, t)
              late.push(bill)
              yield* exchange.append("spot", [bill])
            }
          })
    const { bills: got, exit } = yield* collect(api.streamSpotBills(query), arrive)
    const lateSelected = selected(late, query)
    if (crowded.length > 0) {
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? exit.cause : undefined
      expect(error?._tag).toBe("Fail")
      const failure = error?._tag === "Fail" ? (error.error as BillsError) : undefined
      expect(failure?._tag).toBe("BillsIncomplete")
      expect(crowded).toContain(failure?._tag === "BillsIncomplete" ? failure.millisecond : undefined)
      expectNoRepeatsWithin(got, expected, lateSelected)
    } else {
      if (Exit.isFailure(exit)) expect.fail(`the stream failed: ${String(exit.cause)}`)
      expectExactly(got, expected, lateSelected)
      expectTimeOrder(got, c.order)
    }
  }).pipe(
    Effect.provide(
      fakeStack({
        exchange: {
          bills: { spot: bills },
          order: c.order,
          bounds: c.bounds,
          rateLimit: false,
          ...(c.faults === undefined ? {} : { faults: { random: c.faults } })
        },
        config: { maxAttempts: 12, retryBaseDelay: 1, maxRetryDelay: 2 },
        rateLimit: false
      })
    )
  )
}

describe("streamSpotBills (property)", () => {
  it("yields every selected bill exactly once, or fails naming a crowded millisecond", {
    timeout: 120_000
  }, async () => {
    await fc.assert(
      fc.asyncProperty(spotCase, (c) => Effect.runPromise(runCase(c))),
      { numRuns: 100 }
    )
  })
})
