/**
 * Example: every bill of both accounts, collected with `Stream.runCollect`. Each stream reads
 * its account page by page as it is pulled and yields each bill exactly once, or fails with a
 * typed `BillsError`; it never stops short without saying so.
 */
import { BillsApi, type FundingBill, type SpotBill, type TimeInput } from "@account-bills/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** A half-open window `[from, to)`; `to` defaults to the moment the walk starts. */
export interface Window {
  readonly from?: TimeInput
  readonly to?: TimeInput
}

/** Every funding and spot bill of `window`, in the exchange's order. */
export const streamAll = (window: Window = {}) =>
  Effect.gen(function* () {
    const api = yield* BillsApi
    const funding: Chunk.Chunk<FundingBill> = yield* Stream.runCollect(api.streamFundingBills(window))
    const spot: Chunk.Chunk<SpotBill> = yield* Stream.runCollect(api.streamSpotBills(window))
    return { funding: Chunk.toReadonlyArray(funding), spot: Chunk.toReadonlyArray(spot) }
  })
