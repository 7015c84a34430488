/**
 * PLACEHOLDER until the streams land (issue 4); replaced wholesale.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { FundingBill, FundingBillsPage, SpotBill } from "./Bill.js"
import { type BillsError, BillsIncomplete } from "./Errors.js"
import type { FundingBillsParams, SpotBillsParams } from "./Params.js"

export interface FundingBillsQuery {}
export interface SpotBillsQuery {}
export interface FundingPage {
  readonly bills: ReadonlyArray<FundingBill>
}
export interface SpotPage {
  readonly bills: ReadonlyArray<SpotBill>
}
export const makeStreams = (_: {
  readonly fundingBills: (params?: FundingBillsParams) => Effect.Effect<FundingBillsPage, BillsError>
  readonly spotBills: (params?: SpotBillsParams) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>
}) => {
  const missing = (operation: "fundingBills" | "spotBills") =>
    Stream.fail(new BillsIncomplete({ operation, description: "streams are not built yet" }))
  return {
    streamFundingBills: (_query?: FundingBillsQuery): Stream.Stream<FundingBill, BillsError> => missing("fundingBills"),
    streamSpotBills: (_query?: SpotBillsQuery): Stream.Stream<SpotBill, BillsError> => missing("spotBills"),
    streamFundingPages: (_query?: FundingBillsQuery): Stream.Stream<FundingPage, BillsError> =>
      missing("fundingBills"),
    streamSpotPages: (_query?: SpotBillsQuery): Stream.Stream<SpotPage, BillsError> => missing("spotBills"),
    _effect: Effect.void
  }
}
