/**
 * `BillsApi` answered from a store, with no network: the three operations list stored bills the
 * way the exchange listed them (its order, inclusive bounds), and the streams are the client's
 * own walks over them, so export, audit and `Ledger` run offline unchanged and an NDJSON export
 * from the store is the export from the exchange.
 *
 * A read holds what the store holds completely: each kind from the start to the end of its
 * covered window, as it was when the client was made, so a sync under way (another process, a
 * fleet's pass) neither stops the read nor mixes its unfinished part in; `partial` reads every
 * bill held instead.
 *
 * A store that fails while being read is a defect here (`StoreUnavailable`, and
 * `StoreNotSynced` for a kind no sync has finished): `BillsApi`'s errors describe the exchange;
 * `catchStoreDefects` turns it back into a failure.
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
import { type BillKind, BillsStore, type StoreCoverage, type StoreFailure } from "./BillsStore.js"
import * as StoreAccount from "./StoreAccount.js"
import { StoreAccountUnknown, StoreDiskFull, StoreNotSynced, StoreUnavailable } from "./StoreErrors.js"

const storeDefect = (defect: unknown): defect is StoreUnavailable | StoreDiskFull | StoreNotSynced =>
  defect instanceof StoreUnavailable || defect instanceof StoreDiskFull || defect instanceof StoreNotSynced

/**
 * Turns the store's failures that `BillsApi` carried as defects back into failures.
 *
 * @since 0.1.0
 * @category combinators
 */
export const catchStoreDefects = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreUnavailable | StoreDiskFull | StoreNotSynced, R> =>
  Effect.catchSomeDefect(effect, (defect) => (storeDefect(defect) ? Option.some(Effect.fail(defect)) : Option.none()))

/**
 * How a client over the store reads: by default what the store holds completely (see the module
 * note); `partial` reads every bill held. `coverage` is what the store held when the read began,
 * as `BillsStore.coverage` gave it, for a caller that has already read it (and said so): the
 * client then reads up to the ends that caller named, even if a sync finishes meanwhile.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadOptions {
  readonly partial?: boolean | undefined
  readonly coverage?: ReadonlyArray<StoreCoverage> | undefined
}

/**
 * The window `[start, end]` (inclusive, as the operations take it) cut to what `coverage` holds
 * completely, or the read's failure when it holds nothing completely yet.
 */
const within = (target: string, coverage: StoreCoverage) => (start: number | undefined, end: number | undefined) =>
  coverage.coveredFrom === null || coverage.coveredTo === null
    ? Effect.die(new StoreNotSynced({ target, account: coverage.account, kind: coverage.kind }))
    : Effect.succeed({
        start: Math.max(start ?? coverage.coveredFrom, coverage.coveredFrom),
        // The covered end is exclusive.
        end: Math.min(end ?? coverage.coveredTo - 1, coverage.coveredTo - 1)
      })

/**
 * The client over the store in context, for one account (its `StoreAccount.id`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (account: string, options: ReadOptions = {}): Effect.Effect<BillsApiShape, never, BillsStore> =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    const bounds = (kind: BillKind) =>
      options.partial === true
        ? Effect.succeed((start: number | undefined, end: number | undefined) => Effect.succeed({ start, end }))
        : Effect.map(
            Option.match(
              Option.fromNullable(options.coverage?.find((held) => held.account === account && held.kind === kind)),
              { onNone: () => Effect.orDie(store.coverage(account, kind)), onSome: Effect.succeed }
            ),
            (coverage) => within(store.target, coverage)
          )
    const funding = yield* bounds("funding")
    const spot = yield* bounds("spot")
    const contract = yield* bounds("contract")
    const fetchFunding = (params: ValidFundingBillsParams) =>
      funding(params.startTime, params.endTime).pipe(
        Effect.flatMap(({ start, end }) =>
          store.fundingPage(account, {
            coinId: params.coinId,
            bizType: params.bizType,
            start,
            end,
            pageIndex: params.pageIndex ?? 1,
            pageSize: params.pageSize ?? 10
          })
        ),
        Effect.orDie
      )
    const fetchSpot = (params: ValidSpotBillsParams) =>
      spot(params.after, params.before).pipe(
        Effect.flatMap(({ start, end }) =>
          store.spotPage(account, {
            coinId: params.coinId,
            bizType: params.bizType,
            start,
            end,
            limit: params.limit ?? 10
          })
        ),
        Effect.orDie
      )
    // Answered as v2 answers: the records alone, no `hasNextPage`; the walk narrows its window.
    const fetchContract = (params: ValidContractBillsParams) =>
      contract(params.startTime, params.endTime).pipe(
        Effect.flatMap(({ start, end }) =>
          store.contractPage(account, {
            coinName: params.asset,
            symbol: params.symbol,
            bizType: params.incomeType,
            start,
            end,
            limit: params.limit ?? 20
          })
        ),
        Effect.map((items) => new ContractBillsPage({ items })),
        Effect.orDie
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
export const layer = (account: string, options?: ReadOptions): Layer.Layer<BillsApi, never, BillsStore> =>
  Layer.effect(BillsApi, make(account, options))

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
  selection: AccountSelection,
  options?: ReadOptions
): Layer.Layer<BillsApi, StoreFailure | StoreAccountUnknown, BillsStore> =>
  Layer.unwrapEffect(Effect.map(resolveAccount(selection), (account) => layer(account, options)))
