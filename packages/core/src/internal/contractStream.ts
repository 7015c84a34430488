/**
 * The contract page stream: the futures account walked by time window, as the spot account is
 * (`spotStream.ts`): the operation takes the same time bounds and limit. What differs is said
 * here: its filters, and that its window may span at most 100 days, a rule known before any
 * refusal, so every request carries both bounds within it.
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { ContractBillsPage } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import { contractHistoryStartMillis, contractMaxSpanMillis } from "../Operation.js"
import { ContractBillsParams, type ValidContractBillsParams } from "../Params.js"
import { type ContractBillsQuery, ContractCursor, type ContractPage } from "../Streams.js"
import { freshWalk, windowPages } from "./spotStream.js"
import type { SpotRequest } from "./spotWalk.js"
import { querySchema, startWalk } from "./walk.js"

/** One contract call with parameters known to be valid. */
export type FetchContract = (params: ValidContractBillsParams) => Effect.Effect<ContractBillsPage, BillsError>

const ContractQuery = querySchema({
  asset: ContractBillsParams.from.fields.asset,
  symbol: ContractBillsParams.from.fields.symbol,
  incomeType: ContractBillsParams.from.fields.incomeType
})

const start = Effect.fn("BillsApi.streamContract.start")((query: ContractBillsQuery) =>
  startWalk(
    "contractBills",
    ContractQuery,
    query,
    // No start: the exchange's opening, not 1970 (see contractHistoryStartMillis).
    (valid, end) => new ContractCursor(freshWalk(valid.from ?? contractHistoryStartMillis, end, valid))
  )
)

/**
 * The contract page stream over `fetch`: every bill of the query exactly once, in the server's
 * order, each page with the cursor to resume after it.
 */
export const contractPages = (
  fetch: FetchContract
): ((query?: ContractBillsQuery) => Stream.Stream<ContractPage, BillsError>) => {
  const pages = windowPages({
    operation: "contractBills",
    start,
    fetch: Effect.fn("BillsApi.streamContract.page")(function* (
      cursor: ContractCursor,
      request: SpotRequest,
      limit: number
    ) {
      yield* Effect.annotateCurrentSpan({ ...request })
      const page = yield* fetch({
        asset: cursor.asset,
        symbol: cursor.symbol,
        incomeType: cursor.incomeType,
        // Both bounds or neither: under the width rule the walk always sends a start.
        startTime: request.after ?? 0,
        endTime: request.before,
        limit
      })
      return page.items
    }),
    remake: (cursor, fields) => new ContractCursor({ ...cursor, ...fields }, true),
    maxWidth: contractMaxSpanMillis
  })
  return (query = {}) => pages(query)
}
