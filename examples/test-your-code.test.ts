import { TestBillsApi, FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { netDeposits } from "./test-your-code.js"

// Canned bills exactly as the exchange would send them.
const bill = (billId: string, bizType: string, deltaAmount: string, afterAmount: string, cTime: number) => ({
  billId,
  coinId: 2,
  coinName: "USDT",
  bizType,
  deltaAmount,
  afterAmount,
  fees: "0",
  cTime: String(cTime),
  fillSize: null,
  fillValue: null
})

const may = Date.UTC(2024, 4, 1)

describe("example: testing your own code with the test layers", () => {
  it.effect("sums deposits and withdrawals exactly", () =>
    Effect.gen(function* () {
      // Streams stop at "now", read from the Clock: under TestClock, say what day it is.
      yield* TestClock.setTime(Date.UTC(2024, 7, 1))
      const totals = yield* netDeposits(new Date(may), new Date(Date.UTC(2024, 5, 1)))
      expect(BigDecimal.format(totals.get("USDT") ?? BigDecimal.fromBigInt(0n))).toBe("70.3")
      // The handle of the fake exchange tells what your code asked for.
      const exchange = yield* FakeExchange
      expect((yield* exchange.requests).length).toBe(1)
    }).pipe(
      Effect.provide(
        TestBillsApi.layer({
          funding: [
            bill("1001", "deposit", "100.1", "100.1", may + 1_000),
            bill("1002", "rake_back_reward", "0.5", "100.6", may + 2_000),
            bill("1003", "withdraw", "-29.8", "70.8", may + 3_000),
            bill("1004", "deposit", "5", "75.8", Date.UTC(2024, 6, 1))
          ]
        })
      )
    )
  )
})
