/**
 * Example: code of your own that uses BillsApi, written so it can be tested with the test
 * layers (see test-your-code.test.ts). Here: the net amount deposited per coin.
 */
import { BillsApi } from "@account-bills/core"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** Net deposits minus withdrawals of the funding account per coin name, exact. */
export const netDeposits = (from: Date, to: Date) =>
  Effect.gen(function* () {
    const api = yield* BillsApi
    return yield* api.streamFundingBills({ from, to }).pipe(
      Stream.filter((bill) => bill.bizType === "deposit" || bill.bizType === "withdraw"),
      Stream.runFold(new Map<string, BigDecimal.BigDecimal>(), (totals, bill) =>
        totals.set(
          bill.coinName,
          BigDecimal.sum(totals.get(bill.coinName) ?? BigDecimal.fromBigInt(0n), bill.deltaAmount)
        )
      )
    )
  })
