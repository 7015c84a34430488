/**
 * `BillsApi` answered from a store, with no network: the three operations list stored bills the
 * way the exchange listed them (its order, inclusive bounds), and the streams are the client's
 * own walks over them, so export, audit and `Ledger` run offline unchanged and an NDJSON export
 * from the store is the export from the exchange.
 *
 * A store that fails while being read is a defect here (`StoreUnavailable`): `BillsApi`'s
 * errors describe the exchange; `catchStoreDefects` turns it back into a failure.
 *
 * @since 0.1.0
 */
import {
  BillsApi,
  type BillsApiShape,
  ContractBillsPage,
  type ValidContractBillsParams,
  type ValidFundingBillsParams,
  type ValidSpotBillsParams
} from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { BillsStore, type StoreFailure } from "./BillsStore.js"
import * as StoreAccount from "./StoreAccount.js"
import { StoreAccountUnknown, StoreDiskFull, StoreUnavailable } from "./StoreErrors.js"

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
    const fetchFunding = (params: ValidFundingBillsParams) =>
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
    const fetchSpot = (params: ValidSpotBillsParams) =>
      Effect.orDie(
        store.spotPage(account, {
          coinId: params.coinId,
          bizType: params.bizType,
          start: params.after,
          end: params.before,
          limit: params.limit ?? 10
        })
      )
    // Answered as v2 answers: the records alone, no `hasNextPage`; the walk narrows its window.
    const fetchContract = (params: ValidContractBillsParams) =>
      Effect.orDie(
        Effect.map(
          store.contractPage(account, {
            coinName: params.asset,
            symbol: params.symbol,
            bizType: params.incomeType,
            start: params.startTime,
            end: params.endTime,
            limit: params.limit ?? 20
          }),
          (items) => new ContractBillsPage({ items })
        )
      )
    // Calls are checked by the client (InvalidParams); the store only answers checked ones.
    return BillsApi.fromOperations({ fetchFunding, fetchSpot, fetchContract })
  })

/**
 * `BillsApi` over the store, for one account.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (account: string): Layer.Layer<BillsApi, never, BillsStore> =>
  Layer.effect(BillsApi, make(account))

/**
 * Which stored account to read: by label, by API key (its fingerprint), or, given neither,
 * the store's only account.
 *
 * @since 0.1.0
 * @category models
 */
export interface AccountSelection {
  readonly label?: string | undefined
  readonly apiKey?: Redacted.Redacted<string> | undefined
}

/**
 * The id of the stored account `selection` names.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolveAccount = (
  selection: AccountSelection
): Effect.Effect<string, StoreFailure | StoreAccountUnknown, BillsStore> =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    const accounts = yield* store.accounts
    const unknown = (reason: string) => new StoreAccountUnknown({ target: store.target, reason })
    if (selection.label !== undefined) {
      const found = accounts.find((account) => account.label === selection.label)
      if (found === undefined) return yield* unknown(`it holds no account labelled "${selection.label}"`)
      return found.id
    }
    if (selection.apiKey !== undefined) {
      const print = StoreAccount.fingerprint(selection.apiKey)
      const found = accounts.filter((account) => account.fingerprint === print)
      if (found.length === 1 && found[0] !== undefined) return found[0].id
      if (found.length === 0) return yield* unknown("it holds no account of this API key; sync it first")
      return yield* unknown(
        `this API key is kept under several labels (${found.map((account) => account.id).join(", ")}); choose one with --label (label in code), e.g. --label ${found[0]?.id ?? ""}`
      )
    }
    if (accounts.length === 1 && accounts[0] !== undefined) return accounts[0].id
    return yield* unknown(
      accounts.length === 0
        ? "it is empty; sync into it first"
        : `it holds ${accounts.length} accounts; set WEEX_API_KEY to the one to read`
    )
  })

/**
 * `BillsApi` over the store, for the account `selection` names.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFor = (
  selection: AccountSelection
): Layer.Layer<BillsApi, StoreFailure | StoreAccountUnknown, BillsStore> =>
  Layer.unwrapEffect(Effect.map(resolveAccount(selection), layer))
