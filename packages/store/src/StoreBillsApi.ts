/**
 * `BillsApi` answered from a store, with no network: the two operations list stored bills the
 * way the exchange listed them (its order, inclusive bounds), and the streams are the client's
 * own walks over them, so export, audit and `Ledger` run offline unchanged and an NDJSON export
 * from the store is the export from the exchange.
 *
 * A store that fails while being read is a defect here (`StoreUnavailable`): `BillsApi`'s
 * errors describe the exchange; `catchStoreDefects` turns it back into a failure.
 *
 * @since 0.1.0
 */
import { BillsApi, type BillsApiShape, FundingBillsParams, makeStreams, SpotBillsParams } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { BillsStore } from "./BillsStore.js"
import { StoreDiskFull, StoreUnavailable } from "./StoreErrors.js"

const storeDefect = (defect: unknown): defect is StoreUnavailable | StoreDiskFull =>
  defect instanceof StoreUnavailable || defect instanceof StoreDiskFull

/**
 * Turns the store's failures that `BillsApi` carried as defects back into failures.
 *
 * @since 0.1.0
 * @category combinators
 */
export const catchStoreDefects = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreUnavailable | StoreDiskFull, R> =>
  Effect.catchSomeDefect(effect, (defect) => (storeDefect(defect) ? Option.some(Effect.fail(defect)) : Option.none()))

/**
 * The client over the store in context, for one account (its `StoreAccount.id`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (account: string): Effect.Effect<BillsApiShape, never, BillsStore> =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    const fetchFunding = (params: typeof FundingBillsParams.Type) =>
      Effect.orDie(
        store.fundingPage(account, {
          coinId: params.coinId,
          bizType: params.bizType,
          start: params.startTime,
          end: params.endTime,
          pageIndex: params.pageIndex ?? 1,
          pageSize: params.pageSize ?? 10
        })
      )
    const fetchSpot = (params: typeof SpotBillsParams.Type) =>
      Effect.orDie(
        store.spotPage(account, {
          coinId: params.coinId,
          bizType: params.bizType,
          start: params.after,
          end: params.before,
          limit: params.limit ?? 10
        })
      )
    const invalid = (operation: "fundingBills" | "spotBills") => (error: { readonly message: string }) =>
      Effect.die(new StoreUnavailable({ target: store.target, reason: `${operation}: ${error.message}` }))
    return BillsApi.of({
      fundingBills: (params = {}) =>
        Effect.flatMap(
          Effect.catchAll(Schema.decodeUnknown(FundingBillsParams)(params), invalid("fundingBills")),
          fetchFunding
        ),
      spotBills: (params = {}) =>
        Effect.flatMap(Effect.catchAll(Schema.decodeUnknown(SpotBillsParams)(params), invalid("spotBills")), fetchSpot),
      // The store is its own clock's neighbour: nothing to measure.
      syncClock: Effect.succeed(0),
      ...makeStreams({ fetchFunding, fetchSpot })
    })
  })

/**
 * `BillsApi` over the store, for one account.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (account: string): Layer.Layer<BillsApi, never, BillsStore> =>
  Layer.effect(BillsApi, make(account))
