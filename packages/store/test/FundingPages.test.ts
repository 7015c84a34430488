/**
 * The funding operation over the store, paged by `pageIndex` as the exchange pages it: a walk's
 * later pages are read by keyset from where the page before ended (fundingBookmarks.ts), and
 * whatever order the pages are asked in (a walk reads ahead, a resumed walk starts in the middle,
 * a page is asked again) each page holds exactly the bills that OFFSET would give it, in both of
 * the exchange's orders, across a millisecond shared by many bills and ids of different lengths.
 */
import { FundingBillFromWire } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as fc from "fast-check"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import { engines } from "./support/engines.js"

const now = Date.UTC(2025, 4, 1)
const account = StoreAccount.make(Redacted.make("funding-pages-key"), "main")

/** 61 bills: ids of 2 to 19 digits, and 25 of them in one millisecond. */
const bills = Array.from({ length: 61 }, (_, i) =>
  Schema.decodeUnknownSync(FundingBillFromWire)({
    billId: String(7 + i * 7919 ** (i % 5)).padStart(2, "9"),
    coinId: 2,
    coinName: "USDT",
    bizType: i % 3 === 0 ? "withdraw" : "deposit",
    deltaAmount: "1",
    afterAmount: String(i + 1),
    fees: "0",
    cTime: String(i >= 20 && i < 45 ? 5_000 : 1_000 + i * 100)
  })
)

/** The order the store lists funding bills in: time, then id by length and text. */
const ordered = (order: "newest-first" | "oldest-first") => {
  const ascending = [...bills].sort(
    (a, b) =>
      Number(a.raw.cTime) - Number(b.raw.cTime) ||
      a.billId.length - b.billId.length ||
      (a.billId < b.billId ? -1 : a.billId > b.billId ? 1 : 0)
  )
  return order === "newest-first" ? ascending.reverse() : ascending
}

for (const engine of engines) {
  const fresh = Layer.unwrapEffect(Effect.map(engine.fresh, (target) => StoreLayer.forTarget(target)))

  describe(`funding pages on ${engine.name}`, () => {
    for (const order of ["newest-first", "oldest-first"] as const) {
      it.effect(`asked in any order, each page holds what OFFSET gives it (${order})`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const store = yield* BillsStore
          yield* store.register(account)
          yield* store.acquireLease(account.id, "funding", "A", 30_000)
          yield* store.commitPage({
            account: account.id,
            kind: "funding",
            owner: "A",
            leaseMillis: 30_000,
            bills,
            cursor: "{}",
            finished: undefined,
            order
          })
          const all = ordered(order).map((bill) => bill.billId)
          const asked = fc.sample(
            fc.record({
              pageSize: fc.integer({ min: 1, max: 13 }),
              pages: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
              deposits: fc.boolean()
            }),
            { numRuns: 30, seed: 51 }
          )
          for (const { pageSize, pages, deposits } of asked) {
            const expected = deposits
              ? ordered(order)
                  .filter((bill) => bill.bizType === "deposit")
                  .map((bill) => bill.billId)
              : all
            // A walk begins at page 1; the rest come in the drawn order, repeats and skips included.
            for (const pageIndex of [1, ...pages]) {
              const got = yield* store.fundingPage(account.id, {
                pageIndex,
                pageSize,
                ...(deposits ? { bizType: "deposit" } : {}),
                start: 0,
                end: 10_000
              })
              const offset = (pageIndex - 1) * pageSize
              expect(
                got.items.map((bill) => bill.billId),
                `page ${pageIndex} of ${pageSize}`
              ).toEqual(expected.slice(offset, offset + pageSize))
              expect(got.total).toBe(expected.length)
              expect(got.hasNextPage).toBe(offset + pageSize < expected.length)
            }
          }
        }).pipe(Effect.provide(fresh))
      )
    }
  })
}
