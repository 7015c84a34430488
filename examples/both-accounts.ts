/**
 * Example: read the funding and the spot account at once. Each operation has its own rate
 * limit at the exchange, and the client's limiter keeps one window per operation, so the two
 * walks run side by side at full speed without tripping either limit.
 */
import { BillsApi } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** Counts the bills of both accounts, walking them concurrently. */
export const countBoth = Effect.gen(function* () {
  const api = yield* BillsApi
  const [funding, spot] = yield* Effect.all(
    [Stream.runCount(api.streamFundingBills()), Stream.runCount(api.streamSpotBills())],
    {
      concurrency: 2
    }
  )
  return { funding, spot }
})
