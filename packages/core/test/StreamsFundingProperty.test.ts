import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import { BillsApi } from "../src/index.js"
import { FakeExchange, type FundingWireBill, Prng } from "../src/testing/index.js"
import { epoch, freeMillisecond, fundingBills, lateFundingBill, type Shape, selected } from "./support/billScenarios.js"
import { fakeStack } from "./support/fakeStack.js"
import { collect, expectExactly } from "./support/streamCheck.js"

const position = fc.noBias(fc.integer({ min: 0, max: 10_000 })).map((n) => n / 10_000)

const shape: fc.Arbitrary<Shape> = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  count: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 400 }), weight: 3 },
    { arbitrary: fc.noBias(fc.integer({ min: 400, max: 5000 })), weight: 1 }
  ),
  maxGroup: fc.constantFrom(1, 5, 30, 99),
  maxGap: fc.constantFrom(1, 3, 1000),
  // Crowded milliseconds do not matter to page numbers; they are here to prove it.
  crowd: fc.option(fc.record({ size: fc.integer({ min: 90, max: 250 }), position }), { nil: undefined, freq: 3 })
})

const fundingCase = fc.record({
  shape,
  order: fc.constantFrom("newest-first" as const, "oldest-first" as const),
  bounds: fc.constantFrom("inclusive" as const, "exclusive" as const),
  coinId: fc.option(fc.constantFrom(1, 2, 7), { nil: undefined, freq: 2 }),
  bizType: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 4 },
    { arbitrary: fc.constantFrom("deposit" as const, "withdraw" as const), weight: 1 }
  ),
  from: fc.option(fc.record({ at: position, delta: fc.integer({ min: -1, max: 1 }) }), { nil: undefined }),
  to: fc.option(fc.record({ at: position, delta: fc.integer({ min: -1, max: 1 }) }), { nil: undefined }),
  /** Every this many bills, new bills arrive, and a late one lands inside the window. */
  appendEvery: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
  faults: fc.option(
    fc.record({ rate: fc.double({ min: 0.05, max: 0.3, noNaN: true }), seed: fc.integer({ min: 1, max: 10_000 }) }),
    { nil: undefined, freq: 3 }
  )
})

type FundingCase = typeof fundingCase extends fc.Arbitrary<infer A> ? A : never

const runCase = (c: FundingCase) => {
  const bills = fundingBills(c.shape)
  const boundOf = (a: FundingCase["from"]) =>
    a === undefined
      ? undefined
      : Math.max(
          0,
          (bills.length === 0 ? epoch : Number(bills[Math.floor(a.at * (bills.length - 1))]?.cTime)) + a.delta
        )
  let from = boundOf(c.from)
  let to = boundOf(c.to)
  if (from !== undefined && to !== undefined && from > to) [from, to] = [to, from]
  const query = { from, to, coinId: c.coinId, bizType: c.bizType }
  const expected = selected(bills, query)
  const prng = Prng.make(c.shape.seed + 1)
  const late: Array<FundingWireBill> = []

  return Effect.gen(function* () {
    const api = yield* BillsApi
    const exchange = yield* FakeExchange
    const lastMillisecond = Number(bills[bills.length - 1]?.cTime ?? epoch)
    const arrive = (count: number) =>
      c.appendEvery === undefined || count % c.appendEvery !== 0
        ? Effect.void
        : Effect.gen(function* () {
            yield* exchange.appendGenerated("funding", 3)
            // A late booking inside the window shifts every later page by one.
            const t = freeMillisecond([...bills, ...late], prng, from ?? epoch, to ?? lastMillisecond + 1)
            if (t !== undefined && late.length < 20) {
              const bill = lateFundingBill(late.length, t)
              late.push(bill)
              yield* exchange.append("funding", [bill])
            }
          })
    const { bills: got, exit } = yield* collect(api.streamFundingBills(query), arrive)
    if (Exit.isFailure(exit)) expect.fail(`the stream failed: ${String(exit.cause)}`)
    expectExactly(got, expected, selected(late, query))
  }).pipe(
    Effect.provide(
      fakeStack({
        exchange: {
          bills: { funding: bills },
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

describe("streamFundingBills (property)", () => {
  it("yields every selected bill exactly once, late bookings at most once", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fundingCase, (c) => Effect.runPromise(runCase(c))),
      { numRuns: 80 }
    )
  })
})
