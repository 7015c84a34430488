/**
 * The four streams of `BillsApi`, composed from the two walks over the two operations.
 */
import type * as Stream from "effect/Stream"
import type { FundingBill, SpotBill } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import type { FundingBillsQuery, SpotBillsQuery } from "../Streams.js"
import { type FetchFunding, fundingPages } from "./fundingStream.js"
import { type FetchSpot, spotPages } from "./spotStream.js"
import { billsOf } from "./walk.js"

/**
 * The page streams over the two operations, and the bill streams over the page streams.
 */
export const makeStreams = (operations: { readonly fetchFunding: FetchFunding; readonly fetchSpot: FetchSpot }) => {
  const streamFundingPages = fundingPages(operations.fetchFunding)
  const streamSpotPages = spotPages(operations.fetchSpot)
  return {
    streamFundingPages,
    streamSpotPages,
    streamFundingBills: (query?: FundingBillsQuery): Stream.Stream<FundingBill, BillsError> =>
      billsOf("fundingBills", streamFundingPages(query)),
    streamSpotBills: (query?: SpotBillsQuery): Stream.Stream<SpotBill, BillsError> =>
      billsOf("spotBills", streamSpotPages(query))
  }
}
