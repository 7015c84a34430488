/**
 * The ledger over the three accounts: the futures account's bills merged in time order with the
 * other two, and the balance-chain audit walking each of its assets; a bill the exchange lost
 * from the futures account is found there.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { Ledger } from "../../src/index.js"
import { FakeExchange, type FakeExchangeOptions, TestBillsApi } from "@account-bills/core/testing"

const generate = {
  seed: 11,
  funding: 300,
  spot: 300,
  contract: 300,
  startMillis: Date.UTC(2025, 0, 1),
  endMillis: Date.UTC(2025, 2, 1),
  sameMillisecondGroup: { every: 25, size: 4 }
}

const stack = (exchange: FakeExchangeOptions) =>
  TestBillsApi.layerStack({ exchange: { generate, ...exchange }, rateLimit: false })

describe("Ledger with the futures account", () => {
  for (const order of ["newest-first", "oldest-first"] as const) {
    it.effect(`streams the three accounts once each, in time order, and audits them clean (${order})`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(generate.endMillis + 60_000)
        const exchange = yield* FakeExchange
        const contract = yield* exchange.contractBills
        // The generated futures history holds its own bills and the matched transfers.
        expect(contract.length).toBeGreaterThan(generate.contract)
        const entries = Chunk.toReadonlyArray(
          yield* Stream.runCollect(Ledger.stream({ to: generate.endMillis + 10_000 }))
        )
        const ofContract = entries.filter((entry) => entry.account === "contract")
        expect(new Set(ofContract.map((entry) => entry.bill.billId))).toEqual(new Set(contract.map((b) => b.billId)))
        expect(ofContract.length).toBe(contract.length)
        const times = entries.map((entry) => DateTime.toEpochMillis(entry.bill.cTime))
        expect(times).toEqual([...times].sort((a, b) => (order === "oldest-first" ? a - b : b - a)))
        expect(ofContract.some((entry) => entry.kind === "transfer")).toBe(true)
        expect(ofContract.some((entry) => entry.bizType === "insurance_rebate" && entry.kind === "other")).toBe(true)

        const report = yield* Ledger.audit({ to: generate.endMillis + 10_000 })
        expect(report.whole).toBe(true)
        const futures = report.accounts.find((account) => account.account === "contract")
        expect(futures?.bills).toBe(contract.length)
        expect(new Set(futures?.coins.map((coin) => coin.coinName))).toEqual(new Set(contract.map((b) => b.coinName)))
        expect(futures?.coins.every((coin) => coin.coinId === undefined)).toBe(true)
      }).pipe(Effect.provide(stack({ order })))
    )
  }

  it.effect("a futures bill the exchange lost breaks its asset's chain", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(generate.endMillis + 60_000)
      const complete = yield* Effect.provide(FakeExchange.pipe(Effect.flatMap((e) => e.contractBills)), stack({}))
      const lost = complete[Math.floor(complete.length / 2)]
      const report = yield* Effect.provide(
        Ledger.audit({ to: generate.endMillis + 10_000, account: "contract" }),
        TestBillsApi.layerStack({
          exchange: { bills: { contract: complete.filter((bill) => bill !== lost) } },
          rateLimit: false
        })
      )
      expect(report.whole).toBe(false)
      const broken = report.accounts[0]?.coins.filter((coin) => coin.breakCount > 0) ?? []
      expect(broken.map((coin) => coin.coinName)).toEqual([lost?.coinName])
    })
  )
})
