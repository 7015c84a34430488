/**
 * A v3 futures answer with a cursor and no `hasNextPage` at all (the field left out, as an answer
 * carrying only what some docs mark required would). Only the cursor then says that more follow,
 * and a full page is not the end: a millisecond fuller than a page is read on by `nextKey` to its
 * last bill, however many pages it takes, and the walk goes on past it. Also a crowd at each end of
 * the window, with the flag and without: the walk's first page is crowded before it knows the
 * server's order, and its last crowd ends the listing inside the millisecond.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { BillGenerator, type ContractWireBill, FakeExchange, TestBillsApi } from "../../src/testing/index.js"

const day = 86_400_000
const t0 = Date.UTC(2025, 0, 1)
const crowded = t0 + 4 * day + 321

/** 400 bills over eight days, 260 of them in `crowded` (three pages of 100), neighbours a millisecond away. */
const bills: ReadonlyArray<ContractWireBill> = BillGenerator.generateContract({
  count: 400,
  startMillis: t0,
  endMillis: t0 + 8 * day,
  seed: 53
}).map((bill, i) =>
  i >= 70 && i < 330
    ? { ...bill, cTime: String(crowded) }
    : i === 69 || i === 330
      ? { ...bill, cTime: String(crowded + (i === 69 ? -1 : 1)) }
      : bill
)

describe("v3 answers without hasNextPage", () => {
  for (const order of ["newest-first", "oldest-first"] as const) {
    for (const flag of ["sent", "missing"] as const) {
      // Mutations, each applied once: `page.items.length < limit` -> `<=` in crowdedMillisecond's
      // end of listing (a full page without the flag taken for the last), and `hasNextPage ===
      // false` -> `!== true` in contractStream (no flag read as "nothing follows"): each ends the
      // millisecond after its second page and drops the rest of it, without an error.
      // With the flag sent: `hasNextPage === false` -> `=== true` (a page that says more taken for
      // the last) drops the same way.
      it.effect(`a crowded millisecond of three pages is read to its end, hasNextPage ${flag} (${order})`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(t0 + 9 * day)
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          const got = [...(yield* Stream.runCollect(api.streamContractBills({ from: t0, concurrency: 1 })))]
          const ids = got.map((bill) => bill.billId)
          expect(new Set(ids).size).toBe(ids.length)
          expect([...ids].sort()).toEqual(bills.map((bill) => bill.billId).sort())
          const requests = (yield* exchange.requests).filter((r) => r.operation === "contractBills")
          // The answers really carry no flag, and the millisecond took the cursor at least twice.
          const cursored = requests.filter((r) => (r.params as { nextKeyId?: unknown }).nextKeyId !== undefined)
          expect(cursored.length).toBeGreaterThanOrEqual(2)
          for (const r of cursored) expect((r.params as { nextKeyTime?: unknown }).nextKeyTime).toBe(crowded)
        }).pipe(
          Effect.provide(
            TestBillsApi.layerStack({
              apiVersion: "v3",
              exchange: { bills: { contract: bills }, order, contractWire: { hasNextPage: flag } },
              rateLimit: false
            })
          )
        )
      )
    }
  }

  it.effect("the fake leaves the field out, and gives the cursor on a full page", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 9 * day)
      const exchange = yield* FakeExchange
      const api = yield* BillsApi
      const page = yield* api.contractBills({ startTime: crowded, endTime: crowded + 1, limit: 100 })
      expect(page.items).toHaveLength(100)
      expect(page.hasNextPage).toBeUndefined()
      expect(page.nextKey).toBeDefined()
      const requests = yield* exchange.requests
      expect(requests.length).toBeGreaterThan(0)
    }).pipe(
      Effect.provide(
        TestBillsApi.layerStack({
          apiVersion: "v3",
          exchange: { bills: { contract: bills }, contractWire: { hasNextPage: "missing" } },
          rateLimit: false
        })
      )
    )
  )

  /**
   * `size` bills in the window's first millisecond, `size` in its last, 40 between. With the
   * flag, two full pages: the last of the far crowd says nothing follows and gives no cursor.
   * Without it, a short last page (a full one without a cursor fails, typed: nothing says it ends).
   */
  const endsOf = (size: number): ReadonlyArray<ContractWireBill> =>
    BillGenerator.generateContract({
      count: 2 * size + 40,
      startMillis: t0,
      endMillis: t0 + 8 * day,
      seed: 54
    }).map((bill, i) =>
      i < size ? { ...bill, cTime: String(t0) } : i >= size + 40 ? { ...bill, cTime: String(t0 + 8 * day) } : bill
    )
  /** A bill a day before the walk's `from`, which it must not list. */
  const before = { ...(endsOf(1)[0] as ContractWireBill), billId: "836825748291000001", cTime: String(t0 - day) }
  for (const order of ["newest-first", "oldest-first"] as const) {
    for (const flag of ["sent", "missing"] as const) {
      const ends = endsOf(flag === "sent" ? 200 : 150)
      // Mutations: the order check of a crowd read before the order is known made unconditional
      // (`state.order !== "unknown"` -> `true`: the first page fails, "listed bills unknown and
      // then ..."); and, without the flag, a short page taken for the listing's end only when it
      // says so (`page.saysMore !== true` -> `!== false`: the walk asks a cursor the page did not
      // give, and fails the crowd); the walk's start without its `from` (`valid.from ??
      // contractHistoryStartMillis` -> `valid.from && ...`: the bill before it is listed); with
      // the flag, `hasNextPage === false` -> `false` (a full last page never the last: the walk
      // asks a cursor the answer did not give, and fails).
      it.effect(`a crowd at each end of the window, hasNextPage ${flag} (${order})`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(t0 + 9 * day)
          const api = yield* BillsApi
          const got = [...(yield* Stream.runCollect(api.streamContractBills({ from: t0, concurrency: 1 })))]
          const ids = got.map((bill) => bill.billId)
          expect(new Set(ids).size).toBe(ids.length)
          expect([...ids].sort()).toEqual(ends.map((bill) => bill.billId).sort())
        }).pipe(
          Effect.provide(
            TestBillsApi.layerStack({
              apiVersion: "v3",
              exchange: { bills: { contract: [before, ...ends] }, order, contractWire: { hasNextPage: flag } },
              rateLimit: false
            })
          )
        )
      )
    }
  }
})
