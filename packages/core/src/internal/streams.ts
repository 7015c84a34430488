/**
 * The six streams of `BillsApi`, composed from the walks over the three operations.
 */
import type * as Stream from "effect/Stream"
import type { ContractBill, FundingBill, SpotBill } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import type { ContractBillsQuery, FundingBillsQuery, SpotBillsQuery } from "../Streams.js"
import { contractPages, type FetchContract } from "./contractStream.js"
import { type FetchFunding, fundingPages } from "./fundingStream.js"
import { type FetchSpot, spotPages } from "./spotStream.js"
import { billsOf } from "./walk.js"

/**
 * The page streams over the three operations, and the bill streams over the page streams.
 */
export const makeStreams = (operations: {
  readonly fetchFunding: FetchFunding
  readonly fetchSpot: FetchSpot
  readonly fetchContract: FetchContract
}) => {
  const streamFundingPages = fundingPages(operations.fetchFunding)
  const streamSpotPages = spotPages(operations.fetchSpot)
  const streamContractPages = contractPages(operations.fetchContract)
  return {
    streamFundingPages,
    streamSpotPages,
    streamContractPages,
    streamContractBills: (query?: ContractBillsQuery): Stream.Stream<ContractBill, BillsError> =>
      billsOf("contractBills", streamContractPages(query)),
    streamFundingBills: (query?: FundingBillsQuery): Stream.Stream<FundingBill, BillsError> =>
      billsOf("fundingBills", streamFundingPages(query)),
    streamSpotBills: (query?: SpotBillsQuery): Stream.Stream<SpotBill, BillsError> =>
      billsOf("spotBills", streamSpotPages(query))
  }
}
