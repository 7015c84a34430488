import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import { BillsApi } from "../../src/index.js"
import { epoch, fundingBills, lateFundingBill, selected } from "../support/billScenarios.js"
import { collect, expectExactly } from "../support/streamCheck.js"
import { arrivals, position, propertyParameters, shapeWithCrowd, walkCase, walkStack } from "../support/walkProperty.js"

const fundingCase = walkCase(
  // Crowded milliseconds do not matter to page numbers; they are here to prove it.
  shapeWithCrowd({ min: 90, max: 250 }),
  fc.record({ at: position, delta: fc.integer({ min: -1, max: 1 }) }),
  ["deposit", "withdraw"]
)

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
  const query = { from, to, coinId: c.coinId, bizType: c.bizType, concurrency: c.concurrency }
  const expected = selected(bills, query)
  const { late, arrive } = arrivals({
    account: "funding",
    walk: c,
    bills,
    from,
    to,
    maxLate: 20,
    lateBill: lateFundingBill
  })

  return Effect.gen(function* () {
    const api = yield* BillsApi
    const { bills: got, exit } = yield* collect(api.streamFundingBills(query), arrive)
    if (Exit.isFailure(exit)) expect.fail(`the stream failed: ${String(exit.cause)}`)
    expectExactly(got, expected, selected(late, query))
  }).pipe(Effect.provide(walkStack("funding", bills, c)))
}

describe("streamFundingBills (property)", () => {
  it("yields every selected bill exactly once, late bookings at most once", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fundingCase, (c) => Effect.runPromise(runCase(c))),
      propertyParameters(80, 20252)
    )
  })
})
