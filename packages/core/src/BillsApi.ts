/**
 * The client: the three accounts' operations (funding, spot, and since 0.2.0 the futures
 * account's contract bills), and streams over whole histories.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import {
  type ContractBill,
  ContractBillsData,
  ContractBillsPage,
  type FundingBill,
  FundingBillsPage,
  type SpotBill,
  SpotBills
} from "./Bill.js"
import type { BillsConfig } from "./BillsConfig.js"
import type { BillsRateLimiter } from "./BillsRateLimiter.js"
import { BillsApiError, type BillsError, InvalidParams } from "./Errors.js"
import type { Answer } from "./internal/envelope.js"
import { makeExchangeRequest } from "./internal/exchangeRequest.js"
import * as FastDecode from "./internal/fastDecode.js"
import { validate } from "./internal/validate.js"
import { insideWindow } from "./internal/windowGuard.js"
import { contractBody, fundingBody, spotBody } from "./internal/requestBody.js"
import {
  ContractBillsParams,
  FundingBillsParams,
  SpotBillsParams,
  type ValidContractBillsParams,
  type ValidFundingBillsParams,
  type ValidSpotBillsParams
} from "./Params.js"
import type { Signer } from "./Signer.js"
import { makeStreams } from "./internal/streams.js"
import type {
  ContractBillsQuery,
  ContractPage,
  FundingBillsQuery,
  FundingPage,
  SpotBillsQuery,
  SpotPage
} from "./Streams.js"

/** The fast decoder's answer, or the schema's when the fast one declines. */
const decodeWith =
  <A, E>(fast: (data: unknown) => A | undefined, schema: (answer: Answer) => Effect.Effect<A, E>) =>
  (answer: Answer): Effect.Effect<A, E> => {
    const decoded = fast(answer.data)
    return decoded === undefined ? schema(answer) : Effect.succeed(decoded)
  }

/**
 * What users call.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsApiShape {
  /** One page of funding bills. */
  readonly fundingBills: (params?: FundingBillsParams) => Effect.Effect<FundingBillsPage, BillsError>
  /** Up to `limit` spot bills of a time window. */
  readonly spotBills: (params?: SpotBillsParams) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>
  /**
   * Up to `limit` bills of the futures account (on `BillsConfig.contractBaseUrl`); the bounds go
   * together or not at all and span at most 100 days. Since 0.2.0.
   */
  readonly contractBills: (params?: ContractBillsParams) => Effect.Effect<ContractBillsPage, BillsError>
  /**
   * Measures the exchange's clock (`GET /api/v2/public/time`, or `/api/v3/time` on v3), makes the signer use it, and
   * returns the offset in ms (exchange minus local). Calls do this by themselves when the
   * exchange rejects their timestamp; call it up front to avoid that first rejection.
   */
  readonly syncClock: Effect.Effect<number, BillsError>
  /** Every funding bill of the query, exactly once; pages are fetched as the stream is pulled. */
  readonly streamFundingBills: (query?: FundingBillsQuery) => Stream.Stream<FundingBill, BillsError>
  /** Every spot bill of the query, exactly once; time windows are fetched as the stream is pulled. */
  readonly streamSpotBills: (query?: SpotBillsQuery) => Stream.Stream<SpotBill, BillsError>
  /**
   * Every contract bill of the query exactly once, in 100-day slices; time windows are fetched as
   * the stream is pulled. Since 0.2.0.
   */
  readonly streamContractBills: (query?: ContractBillsQuery) => Stream.Stream<ContractBill, BillsError>
  /** The funding walk page by page, each page with the cursor to resume after it. */
  readonly streamFundingPages: (query?: FundingBillsQuery) => Stream.Stream<FundingPage, BillsError>
  /** The spot walk page by page, each page with the cursor to resume after it. */
  readonly streamSpotPages: (query?: SpotBillsQuery) => Stream.Stream<SpotPage, BillsError>
  /** The contract walk page by page, each page with the cursor to resume after it. Since 0.2.0. */
  readonly streamContractPages: (query?: ContractBillsQuery) => Stream.Stream<ContractPage, BillsError>
}

/**
 * The bills client.
 *
 * @since 0.1.0
 * @category tags
 */
export class BillsApi extends Context.Tag("@account-bills/core/BillsApi")<BillsApi, BillsApiShape>() {
  /** The client, from the HttpClient, signer, rate limiter and settings in context. */
  static readonly make: Effect.Effect<
    BillsApiShape,
    never,
    HttpClient.HttpClient | Signer | BillsRateLimiter | BillsConfig
  > = Effect.gen(function* () {
    const { decode, request, syncClock, version } = yield* makeExchangeRequest
    // The fast path takes every well-formed page; anything else goes to the schema, which
    // decides and names the field that is wrong. The calls here take parameters already valid:
    // the streams build theirs from a checked cursor and come here directly, in their own span.
    const decodeFunding = decodeWith(FastDecode.fundingBillsPage, decode("fundingBills", FundingBillsPage))
    const decodeSpot = decodeWith(FastDecode.spotBills, decode("spotBills", SpotBills))
    const decodeContract = decode("contractBills", ContractBillsData)
    // A bill from outside the window asked for fails the call: filtered out, it would hide a gap.
    const fetchFunding = (valid: ValidFundingBillsParams) =>
      request("fundingBills", fundingBody(valid)).pipe(
        Effect.flatMap(decodeFunding),
        Effect.tap((page) => insideWindow("fundingBills", page.items, valid.startTime, valid.endTime))
      )
    const fetchSpot = (valid: ValidSpotBillsParams) =>
      request("spotBills", spotBody(valid)).pipe(
        Effect.flatMap(decodeSpot),
        Effect.flatMap((bills) => insideWindow("spotBills", bills, valid.after, valid.before))
      )

    // The cursor is v3's (v2 documents none): a v2 client neither sends one nor follows one.
    const fetchContract = (valid: ValidContractBillsParams) =>
      version === "v2" && valid.nextKeyId !== undefined
        ? Effect.fail(
            new InvalidParams({
              operation: "contractBills",
              field: "nextKeyId",
              rule: "the cursor (nextKeyId, nextKeyTime) is the v3 interface's; this client speaks v2 (WEEX_API_VERSION)"
            })
          )
        : request("contractBills", contractBody(valid, version)).pipe(
            Effect.flatMap(decodeContract),
            Effect.map((page) =>
              version === "v2" && page.nextKey !== undefined
                ? new ContractBillsPage(
                    page.hasNextPage === undefined
                      ? { items: page.items }
                      : { items: page.items, hasNextPage: page.hasNextPage }
                  )
                : page
            ),
            Effect.tap((page) => insideWindow("contractBills", page.items, valid.startTime, valid.endTime))
          )

    return BillsApi.fromOperations({ fetchFunding, fetchSpot, fetchContract, syncClock })
  })

  /**
   * A client over any source of the two operations (a store, a cache, a recording): the calls
   * check their parameters (`InvalidParams`, nothing reaches the source), and the streams are the
   * same walks as over the exchange. The source receives parameters already checked.
   */
  static readonly fromOperations = (operations: {
    /** One funding call. */
    readonly fetchFunding: (params: ValidFundingBillsParams) => Effect.Effect<FundingBillsPage, BillsError>
    /** One spot call. */
    readonly fetchSpot: (params: ValidSpotBillsParams) => Effect.Effect<ReadonlyArray<SpotBill>, BillsError>
    /**
     * One contract call. A source without contract bills leaves it out: its contract calls then
     * fail with a `BillsApiError` (reason `"Permission"`) that says so, as a key without futures
     * permission does.
     */
    readonly fetchContract?:
      | ((params: ValidContractBillsParams) => Effect.Effect<ContractBillsPage, BillsError>)
      | undefined
    /** What `syncClock` does; a source with no clock of its own measures nothing (0). */
    readonly syncClock?: Effect.Effect<number, BillsError> | undefined
  }): BillsApiShape => {
    const { fetchFunding, fetchSpot } = operations
    const fetchContract =
      operations.fetchContract ??
      (() =>
        Effect.fail(
          new BillsApiError({
            operation: "contractBills",
            reason: "Permission",
            code: "",
            msg: "this source holds no contract bills",
            status: 0
          })
        ))
    const fundingBills = Effect.fn("BillsApi.fundingBills")(function* (params: FundingBillsParams = {}) {
      const valid = yield* validate("fundingBills", FundingBillsParams, params)
      yield* Effect.annotateCurrentSpan(valid)
      return yield* fetchFunding(valid)
    })

    const spotBills = Effect.fn("BillsApi.spotBills")(function* (params: SpotBillsParams = {}) {
      const valid = yield* validate("spotBills", SpotBillsParams, params)
      yield* Effect.annotateCurrentSpan(valid)
      return yield* fetchSpot(valid)
    })
    const contractBills = Effect.fn("BillsApi.contractBills")(function* (params: ContractBillsParams = {}) {
      const valid = yield* validate("contractBills", ContractBillsParams, params)
      yield* Effect.annotateCurrentSpan(valid)
      return yield* fetchContract(valid)
    })
    return BillsApi.of({
      fundingBills,
      spotBills,
      contractBills,
      syncClock: operations.syncClock ?? Effect.succeed(0),
      ...makeStreams({ fetchFunding, fetchSpot, fetchContract })
    })
  }

  /** The client layer; needs an HttpClient, a Signer, a BillsRateLimiter and BillsConfig. */
  static readonly layer: Layer.Layer<BillsApi, never, HttpClient.HttpClient | Signer | BillsRateLimiter | BillsConfig> =
    Layer.effect(BillsApi, BillsApi.make)
}
