/**
 * What a sync needs of each kind's walk, one entry per kind: how its stored cursor decodes and
 * encodes, which stream continues it, and what a page says of the exchange's order. The sync
 * itself is the same for every kind.
 */
import {
  BillsApi,
  type BillsError,
  type ContractBill,
  ContractCursor,
  type ContractPage,
  type FundingBill,
  FundingCursor,
  type FundingPage,
  type SpotBill,
  SpotCursor,
  type SpotPage
} from "@account-bills/core"
import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { BillKind, ListOrder } from "../BillsStore.js"

/** One page of either walk, as the sync commits it. */
export interface WalkPage {
  readonly bills: ReadonlyArray<FundingBill | SpotBill | ContractBill>
  readonly cursor: FundingCursor | SpotCursor | ContractCursor
  /** The cursor as stored, to resume from. */
  readonly encoded: string
  /** The exchange's order, when this page shows it. */
  readonly order: ListOrder | undefined
}

/** Where a walk starts: a fresh window from `from`, or a stored cursor. */
export interface WalkStart {
  readonly from: number | undefined
  readonly cursor: string | undefined
  readonly concurrency: number | undefined
}

/**
 * A kind's walk for the sync, as a pull (its pages, then `Option.none()` at its end), and the
 * requests its stored cursor counts already (an earlier run's, 0 for a fresh walk): a cursor's
 * tally goes on across runs. The stored cursor fails to decode with its reason. The walk's stream
 * runs in the caller's scope; a pull, not a stream stage, turns its pages into `WalkPage`s, since
 * every stage costs its channel's machinery per run, and a fleet runs one per kind per pass.
 */
export type KindWalk = (start: WalkStart) => Effect.Effect<
  {
    readonly pull: Effect.Effect<Chunk.Chunk<WalkPage>, Option.Option<BillsError>>
    readonly earlierRequests: number
  },
  { readonly reason: string },
  BillsApi | Scope.Scope
>

/** The funding order as one page shows it: times falling means newest first. */
const fundingOrder = (page: FundingPage): ListOrder | undefined => {
  const first = page.bills[0]
  const last = page.bills.at(-1)
  if (first === undefined || last === undefined) return undefined
  const a = DateTime.toEpochMillis(first.cTime)
  const b = DateTime.toEpochMillis(last.cTime)
  return a === b ? undefined : a > b ? "newest-first" : "oldest-first"
}

/** The order a time-window walk (spot, contract) has worked out from what it was sent. */
const windowOrder = (page: SpotPage | ContractPage): ListOrder | undefined =>
  page.cursor.order === "unknown" ? undefined : page.cursor.order

/** A kind's walk from its cursor schema, its stream and its order rule. */
const kindWalk = <C extends WalkPage["cursor"], I, P extends { readonly bills: WalkPage["bills"]; readonly cursor: C }>(
  cursorSchema: Schema.Schema<C, I>,
  stream: (
    api: typeof BillsApi.Service,
    query: { readonly from?: number | undefined; readonly cursor?: C; readonly concurrency: number | undefined }
  ) => Stream.Stream<P, BillsError>,
  orderOf: (page: P) => ListOrder | undefined
): KindWalk => {
  const json = Schema.parseJson(cursorSchema)
  const encode = Schema.encodeSync(json)
  const decode = Schema.decodeUnknown(json)
  return (start) =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const cursor =
        start.cursor === undefined
          ? undefined
          : yield* Effect.mapError(decode(start.cursor), (error) => ({ reason: error.message }))
      const pages = stream(
        api,
        cursor === undefined
          ? { from: start.from, concurrency: start.concurrency }
          : { cursor, concurrency: start.concurrency }
      )
      const pull = yield* Stream.toPull(pages)
      return {
        pull: Effect.map(pull, (chunk) =>
          Chunk.map(
            chunk,
            (page): WalkPage => ({
              bills: page.bills,
              cursor: page.cursor,
              encoded: encode(page.cursor),
              order: orderOf(page)
            })
          )
        ),
        earlierRequests: cursor?.requests ?? 0
      }
    })
}

/** Each kind's walk. */
export const kindWalks: Record<BillKind, KindWalk> = {
  funding: kindWalk(FundingCursor, (api, query) => api.streamFundingPages(query), fundingOrder),
  spot: kindWalk(SpotCursor, (api, query) => api.streamSpotPages(query), windowOrder),
  contract: kindWalk(ContractCursor, (api, query) => api.streamContractPages(query), windowOrder)
}
