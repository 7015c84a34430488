/**
 * One step of the funding walk, as the pure function it is: which bills of a page are emitted
 * (inside `[from, end)`, not repeated from the page before nor within the page), when the walk
 * ends, and which answers fail it. The stream tests check whole walks; these pin each rule at
 * its boundary.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { FundingBillsPage } from "../../src/index.js"
import { type FundingWalkState, fundingRequest, fundingStep } from "../../src/internal/fundingWalk.js"

const record = (id: number, t: number) => ({
  billId: String(1000 + id),
  coinId: 1,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: "1",
  afterAmount: "1",
  fees: "0",
  cTime: String(t),
  fillSize: null,
  fillValue: null
})

const page = (total: number, hasNextPage: boolean, items: ReadonlyArray<ReturnType<typeof record>>) =>
  Schema.decodeUnknownSync(FundingBillsPage)({ total, page: 1, pageSize: 4, hasNextPage, items })

const start: FundingWalkState = { from: 1000, end: 2000, pageIndex: 1, previousPageBillIds: [] }
const pageSize = 4

type Step = ReturnType<typeof fundingStep>
const ids = (step: Step) => (Either.isRight(step) ? step.right.bills.map((b) => Number(b.billId) - 1000) : "failed")
const next = (step: Step) => (Either.isRight(step) ? step.right.next : "failed")
const message = (step: Step) => (Either.isLeft(step) ? step.left.message : "succeeded")

describe("fundingRequest", () => {
  it("widens the start by a millisecond, leaves it out from 0, and sends the pinned end", () => {
    expect(fundingRequest(start)).toEqual({ startTime: 999, endTime: 2000 })
    expect(fundingRequest({ ...start, from: 0 })).toEqual({ startTime: undefined, endTime: 2000 })
    expect(fundingRequest({ ...start, from: 1 })).toEqual({ startTime: 0, endTime: 2000 })
  })
})

describe("fundingStep", () => {
  it("emits the bills of [from, end) once, and moves to the next page with this page's ids", () => {
    const step = fundingStep(
      start,
      page(10, true, [record(1, 2000), record(2, 1999), record(3, 1000), record(4, 999)]),
      pageSize
    )
    expect(ids(step)).toEqual([2, 3])
    expect(next(step)).toEqual({
      from: 1000,
      end: 2000,
      pageIndex: 2,
      previousPageBillIds: ["1001", "1002", "1003", "1004"],
      total: 10
    })
  })

  it("drops the ids of the page before, and an id repeated within the page", () => {
    const state: FundingWalkState = { ...start, pageIndex: 2, previousPageBillIds: ["1003", "1004"], total: 10 }
    const step = fundingStep(
      state,
      page(10, true, [record(3, 1500), record(4, 1500), record(5, 1400), record(5, 1400)]),
      pageSize
    )
    expect(ids(step)).toEqual([5])
    expect(next(step)).toMatchObject({ pageIndex: 3, previousPageBillIds: ["1003", "1004", "1005", "1005"] })
  })

  it("ends on the last page once every bill of the total was listed", () => {
    const state: FundingWalkState = { ...start, pageIndex: 3, total: 10 }
    const last = fundingStep(state, page(10, false, [record(9, 1100), record(10, 1050)]), pageSize)
    expect(ids(last)).toEqual([9, 10])
    expect(next(last)).toBeUndefined()
    // More than the total listed is fine (a late booking); fewer is a gap.
    expect(
      next(fundingStep(state, page(10, false, [record(9, 1100), record(10, 1050), record(11, 1040)]), pageSize))
    ).toBeUndefined()
    // Fewer is a doubt: the bills received are delivered, and the failure after them names the
    // fields that disagree.
    const short = fundingStep(state, page(10, false, [record(9, 1100)]), pageSize)
    expect(ids(short)).toEqual([9])
    expect(next(short)).toBeUndefined()
    expect(Either.isRight(short) && short.right.incomplete?.message).toContain(
      "page 3 says it is the last (hasNextPage false), but it holds 1 bills and 9 of the total 10 have been listed"
    )
    expect(Either.isRight(last) && last.right.incomplete).toBeUndefined()
  })

  it("fails on more bills than a page holds", () => {
    const five = [record(1, 1500), record(2, 1400), record(3, 1300), record(4, 1200), record(5, 1100)]
    expect(message(fundingStep(start, page(10, true, five), pageSize))).toContain("5 bills on a page of 4")
    expect(message(fundingStep(start, page(10, true, five.slice(0, 4)), pageSize))).toBe("succeeded")
  })

  // The exchange knows its pages: a page that says more is followed even where the total says
  // none is left (its v3 docs' sample shows a total that is not the pages' count).
  it("follows hasNextPage beyond the total, and fails on a page with nothing new", () => {
    const full = [record(1, 1500), record(2, 1400), record(3, 1300), record(4, 1200)]
    const beyond = next(fundingStep(start, page(4, true, full), pageSize))
    expect(beyond !== "failed" && beyond?.pageIndex).toBe(2)
    expect(message(fundingStep(start, page(5, true, full), pageSize))).toBe("succeeded")
    const repeated: FundingWalkState = {
      ...start,
      pageIndex: 2,
      previousPageBillIds: ["1001", "1002", "1003", "1004"],
      total: 20
    }
    expect(message(fundingStep(repeated, page(20, true, full), pageSize))).toContain("page 2 repeats the page before")
    // One new id is enough to go on.
    const oneNew = [record(1, 1500), record(2, 1400), record(3, 1300), record(5, 1200)]
    expect(ids(fundingStep(repeated, page(20, true, oneNew), pageSize))).toEqual([5])
  })

  it("checks the total against the page before: not lower, not more than a page higher", () => {
    const state: FundingWalkState = { ...start, pageIndex: 2, total: 10 }
    const items = [record(5, 1500), record(6, 1400), record(7, 1300), record(8, 1200)]
    expect(message(fundingStep(state, page(9, true, items), pageSize))).toContain("fell from 10 to 9")
    expect(message(fundingStep(state, page(10, true, items), pageSize))).toBe("succeeded")
    expect(message(fundingStep(state, page(14, true, items), pageSize))).toBe("succeeded")
    expect(message(fundingStep(state, page(15, true, items), pageSize))).toContain("5 bills were added")
  })
})
