import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { Ledger } from "../../src/index.js"
import { FakeExchange, type FakeExchangeOptions } from "@account-bills/core/testing"
import { fakeStack, runOnTestClock } from "../../../core/test/support/fakeStack.js"

const startMillis = 1_700_000_000_000
const generate = {
  seed: 5,
  funding: 450,
  spot: 650,
  startMillis,
  endMillis: startMillis + 86_400_000,
  sameMillisecondGroup: { every: 25, size: 4 }
}

const stack = (exchange: FakeExchangeOptions) =>
  fakeStack({ exchange: { rateLimit: false, ...exchange }, rateLimit: false })

/** The test clock starts at 0; the ledger reads up to "now", so now comes after the history. */
const afterHistory = TestClock.setTime(generate.endMillis + 60_000)

describe("Ledger against the fake exchange", () => {
  for (const order of ["newest-first", "oldest-first"] as const) {
    for (const bounds of ["inclusive", "exclusive"] as const) {
      it.effect(`streams every bill of both accounts once, in time order (${order}, ${bounds})`, () =>
        Effect.gen(function* () {
          yield* afterHistory
          const exchange = yield* FakeExchange
          const entries = Chunk.toReadonlyArray(yield* Stream.runCollect(Ledger.stream({ to: generate.endMillis + 1 })))
          const funding = yield* exchange.bills("funding")
          const spot = yield* exchange.bills("spot")
          expect(entries).toHaveLength(funding.length + spot.length)
          expect(new Set(entries.filter((e) => e.account === "funding").map((e) => e.bill.billId))).toEqual(
            new Set(funding.map((b) => b.billId))
          )
          expect(new Set(entries.filter((e) => e.account === "spot").map((e) => e.bill.billId))).toEqual(
            new Set(spot.map((b) => b.billId))
          )
          const times = entries.map((e) => DateTime.toEpochMillis(e.bill.cTime))
          const sorted = [...times].sort((a, b) => (order === "oldest-first" ? a - b : b - a))
          expect(times).toEqual(sorted)
          expect(entries.every((e) => e.kind === Ledger.kindOf(e.bizType))).toBe(true)
        }).pipe(Effect.provide(stack({ generate, order, bounds })))
      )

      it.effect(`the generated history audits clean (${order}, ${bounds})`, () =>
        Effect.gen(function* () {
          yield* afterHistory
          const report = yield* Ledger.audit({ to: generate.endMillis + 1 })
          expect(report.whole).toBe(true)
          const [funding, spot] = report.accounts
          expect(funding?.account).toBe("funding")
          expect(funding?.bills).toBe(generate.funding)
          expect(funding?.total).toBe(generate.funding)
          expect(spot?.bills).toBe(generate.spot)
          expect(spot?.total).toBeUndefined()
          expect(funding?.rule).toBe("delta-includes-fees")
          expect(spot?.rule).toBe("delta-includes-fees")
        }).pipe(Effect.provide(stack({ generate, order, bounds })))
      )
    }
  }

  it.effect("a window whose edges fall on bills counts exactly, whatever the bounds", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const exchange = yield* FakeExchange
      const bills = yield* exchange.bills("funding")
      const from = Number(bills[100]?.cTime)
      const to = Number(bills[300]?.cTime)
      const inWindow = bills.filter((b) => Number(b.cTime) >= from && Number(b.cTime) < to)
      const report = yield* Ledger.audit({ from, to, account: "funding" })
      expect(report.accounts).toHaveLength(1)
      expect(report.accounts[0]?.bills).toBe(inWindow.length)
      expect(report.accounts[0]?.total).toBe(inWindow.length)
      expect(report.whole).toBe(true)
    }).pipe(Effect.provide(stack({ generate: { ...generate, sameMillisecondGroup: undefined }, bounds: "inclusive" })))
  )

  it.effect("a bill the exchange lost is found and located", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const source = yield* FakeExchange.make({ generate })
      const spot = yield* source.bills("spot")
      const funding = yield* source.bills("funding")
      const victim = spot.filter((b) => b.coinId === spot[0]?.coinId)[40]
      const report = yield* Ledger.audit({ to: generate.endMillis + 1 }).pipe(
        Effect.provide(stack({ bills: { funding, spot: spot.filter((b) => b !== victim) } }))
      )
      expect(report.whole).toBe(false)
      const broken = report.accounts.flatMap((a) => a.coins).filter((c) => !c.whole)
      expect(broken.map((c) => [c.account, c.coinId, c.breakCount])).toEqual([["spot", victim?.coinId, 1]])
      const [found] = broken[0]?.breaks ?? []
      expect(DateTime.toEpochMillis(found?.earlier.cTime ?? DateTime.unsafeMake(0))).toBeLessThanOrEqual(
        Number(victim?.cTime)
      )
      expect(DateTime.toEpochMillis(found?.later.cTime ?? DateTime.unsafeMake(0))).toBeGreaterThanOrEqual(
        Number(victim?.cTime)
      )
    })
  )

  it.effect("taking a few entries costs one request per account", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const exchange = yield* FakeExchange
      const taken = yield* Stream.runCollect(Stream.take(Ledger.stream({ to: generate.endMillis + 1 }), 5))
      expect(Chunk.size(taken)).toBe(5)
      const stats = yield* exchange.stats
      expect(stats.fundingBills.requests).toBe(1)
      expect(stats.spotBills.requests).toBe(1)
    }).pipe(Effect.provide(stack({ generate })))
  )

  it.effect("one account only, under the rate limits of the real stack", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const exit = yield* runOnTestClock(Ledger.audit({ account: "spot", to: generate.endMillis + 1 }))
      expect(exit._tag).toBe("Success")
      if (exit._tag === "Success") {
        expect(exit.value.accounts.map((a) => a.account)).toEqual(["spot"])
        expect(exit.value.whole).toBe(true)
      }
    }).pipe(Effect.provide(fakeStack({ exchange: { generate } })))
  )

  it.effect("bad queries fail before anything is sent", () =>
    Effect.gen(function* () {
      yield* afterHistory
      const error = yield* Effect.flip(Ledger.audit({ from: 10, to: 5 }))
      expect(error._tag).toBe("InvalidParams")
      const exchange = yield* FakeExchange
      expect((yield* exchange.stats).requests).toBe(0)
    }).pipe(Effect.provide(stack({ generate })))
  )
})
