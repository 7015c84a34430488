/**
 * Runs a bill stream against the fake exchange and checks the stream contract: every selected
 * bill exactly once, field for field, in the server's time order; or a typed failure with
 * nothing repeated before it.
 */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import type { BillsError, FundingBill, SpotBill } from "../../src/index.js"
import type { WireBill } from "../../src/testing/index.js"

export interface Collected<B> {
  readonly bills: ReadonlyArray<B>
  readonly exit: Exit.Exit<void, BillsError>
}

/**
 * Drains `stream`, keeping what came before a failure; `onBill` runs after each bill (to append
 * bills to the exchange mid-walk).
 */
export const collect = <B extends FundingBill | SpotBill, R, R2 = never>(
  stream: Stream.Stream<B, BillsError, R>,
  onBill: (count: number) => Effect.Effect<void, never, R2> = () => Effect.void
): Effect.Effect<Collected<B>, never, R | R2> =>
  Effect.suspend(() => {
    const bills: Array<B> = []
    return stream.pipe(
      Stream.tap((bill) => {
        bills.push(bill)
        return onBill(bills.length)
      }),
      Stream.runDrain,
      Effect.exit,
      Effect.map((exit) => ({ bills, exit }))
    )
  })

/** No id twice, nothing outside `expected` and `allowed`, and raw records equal to the wire bills. */
export const expectNoRepeatsWithin = (
  got: ReadonlyArray<FundingBill | SpotBill>,
  expected: ReadonlyArray<WireBill>,
  allowed: ReadonlyArray<WireBill> = []
): void => {
  const ids = got.map((bill) => bill.billId)
  expect(new Set(ids).size).toBe(ids.length)
  const known = new Map<string, WireBill>()
  for (const bill of [...expected, ...allowed]) known.set(bill.billId, bill)
  for (const bill of got) {
    const wire = known.get(bill.billId)
    if (wire === undefined) expect.fail(`bill ${bill.billId} at ${bill.raw.cTime} was not selected`)
    expect(bill.raw).toEqual(wire)
  }
}

/** Exactly `expected` (plus any of `allowed`, at most once each), field for field. */
export const expectExactly = (
  got: ReadonlyArray<FundingBill | SpotBill>,
  expected: ReadonlyArray<WireBill>,
  allowed: ReadonlyArray<WireBill> = []
): void => {
  expectNoRepeatsWithin(got, expected, allowed)
  const gotIds = new Set<string>(got.map((bill) => bill.billId))
  const missing = expected.filter((bill) => !gotIds.has(bill.billId))
  if (missing.length > 0) {
    expect.fail(`${missing.length} selected bills are missing, e.g. ${missing[0]?.billId} at ${missing[0]?.cTime}`)
  }
}

/** cTimes never go against `order`. */
export const expectTimeOrder = (
  got: ReadonlyArray<FundingBill | SpotBill>,
  order: "newest-first" | "oldest-first"
): void => {
  for (let i = 1; i < got.length; i++) {
    const previous = Number(got[i - 1]?.raw.cTime)
    const current = Number(got[i]?.raw.cTime)
    if (order === "newest-first" ? current > previous : current < previous) {
      expect.fail(`bill ${i} at ${current} comes after one at ${previous} (${order})`)
    }
  }
}
