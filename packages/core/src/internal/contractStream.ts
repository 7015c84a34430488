/**
 * The contract page stream: the futures account walked by time window, as the spot account is
 * (`spotStream.ts`): the operation takes the same time bounds and limit. What differs is said
 * here: its filters, and that its window may span at most 100 days, a rule known before any
 * refusal, so every request carries both bounds within it.
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ContractBill, ContractBillsPage } from "../Bill.js"
import type { BillsError } from "../Errors.js"
import { contractHistoryStartMillis, contractMaxSpanMillis } from "../Operation.js"
import { ContractBillsParams, type ValidContractBillsParams } from "../Params.js"
import { type ContractBillsQuery, ContractCursor, type ContractPage } from "../Streams.js"
import type { Listed } from "./crowdedMillisecond.js"
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
    (valid, end) => new ContractCursor(freshWalk(valid.from ?? contractHistoryStartMillis, end, valid), true)
  )
)

/**
 * v3's cursor as an answer carries it (`nextKey`; the shape is an assumption, see
 * docs/internals/futures-account.md): the last bill's id and time, as numbers or digit strings.
 */
const NextKey = Schema.Struct({
  nextKeyId: Schema.Union(Schema.String.pipe(Schema.pattern(/^\d+$/)), Schema.NonNegativeInt),
  nextKeyTime: Schema.Union(Schema.NumberFromString, Schema.Number).pipe(Schema.compose(Schema.NonNegativeInt))
})
const nextKeyOf = Schema.decodeUnknownOption(NextKey)

/**
 * The contract page stream over `fetch`: every bill of the query exactly once, in the server's
 * order, each page with the cursor to resume after it.
 */
export const contractPages = (
  fetch: FetchContract
): ((query?: ContractBillsQuery) => Stream.Stream<ContractPage, BillsError>) => {
  const page = Effect.fn("BillsApi.streamContract.page")(function* (params: ValidContractBillsParams) {
    yield* Effect.annotateCurrentSpan({ ...params })
    return yield* fetch(params)
  })
  /** An answer to `params`, and the same request again from its `nextKey` when it gave one. */
  const listed = (
    params: ValidContractBillsParams,
    answer: Effect.Effect<ContractBillsPage, BillsError>
  ): Effect.Effect<Listed<ContractBill>, BillsError> =>
    Effect.map(answer, (got) => {
      const key = nextKeyOf(got.nextKey)
      const more = Option.map(key, ({ nextKeyId, nextKeyTime }) => {
        const after = { ...params, nextKeyId: String(nextKeyId), nextKeyTime }
        return listed(after, page(after))
      })
      return {
        items: got.items,
        more: Option.getOrUndefined(more),
        last: got.hasNextPage === false,
        saysMore: got.hasNextPage === true
      }
    })
  const pages = windowPages({
    operation: "contractBills",
    start,
    fetch: (cursor: ContractCursor, request: SpotRequest, limit: number) => {
      const params = {
        asset: cursor.asset,
        symbol: cursor.symbol,
        incomeType: cursor.incomeType,
        // Both bounds or neither: under the width rule the walk always sends a start.
        startTime: request.after ?? 0,
        endTime: request.before,
        limit
      }
      return listed(params, page(params))
    },
    remake: (cursor, fields) => new ContractCursor({ ...cursor, ...fields }, true),
    maxWidth: contractMaxSpanMillis
  })
  return (query = {}) => pages(query)
}
