/**
 * The check that an answer stays inside the window asked for. An exchange that read the bounds
 * otherwise (v3's `after`/`before` as bill ids, as one version of its docs says) would answer
 * bills from elsewhere, and a walk that filtered them out would end with a silent gap.
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import type { ContractBill, FundingBill, SpotBill } from "../Bill.js"
import { BillsIncomplete } from "../Errors.js"
import type { OperationName } from "../Operation.js"

/**
 * Fails with `BillsIncomplete` naming the first bill whose time lies outside `[start, end]`
 * (both ends included: the server's bound convention is unknown); passes the bills otherwise.
 */
export const insideWindow = <B extends FundingBill | SpotBill | ContractBill>(
  operation: OperationName,
  bills: ReadonlyArray<B>,
  start: number | undefined,
  end: number | undefined
): Effect.Effect<ReadonlyArray<B>, BillsIncomplete> => {
  if (start === undefined && end === undefined) return Effect.succeed(bills)
  for (const bill of bills) {
    const millis = DateTime.toEpochMillis(bill.cTime)
    if ((start !== undefined && millis < start) || (end !== undefined && millis > end)) {
      const window = `[${start === undefined ? "…" : new Date(start).toISOString()}, ${end === undefined ? "…" : new Date(end).toISOString()}]`
      return Effect.fail(
        new BillsIncomplete({
          operation,
          millisecond: millis,
          description: `the exchange answered bill ${bill.billId} from outside the window asked for ${window}; it did not read the bounds as times`
        })
      )
    }
  }
  return Effect.succeed(bills)
}
