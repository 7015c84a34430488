/**
 * The client: the two operations of the interface, and streams over whole histories.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import { type FundingBill, FundingBillsPage, type SpotBill, SpotBills } from "./Bill.js"
import type { BillsConfig } from "./BillsConfig.js"
import type { BillsRateLimiter } from "./BillsRateLimiter.js"
import type { BillsError } from "./Errors.js"
import { makeExchangeRequest } from "./internal/exchangeRequest.js"
import * as FastDecode from "./internal/fastDecode.js"
import { validate } from "./internal/validate.js"
import { insideWindow } from "./internal/windowGuard.js"
import { fundingBody, spotBody } from "./internal/requestBody.js"
import {
  FundingBillsParams,
  SpotBillsParams,
  type ValidFundingBillsParams,
  type ValidSpotBillsParams
} from "./Params.js"
import type { Signer } from "./Signer.js"
import { type FundingBillsQuery, type FundingPage, makeStreams, type SpotBillsQuery, type SpotPage } from "./Streams.js"

/** The fast decoder's answer, or the schema's when the fast one declines. */
const decodeWith =
  <A, E>(fast: (data: unknown) => A | undefined, schema: (data: unknown) => Effect.Effect<A, E>) =>
  (data: unknown): Effect.Effect<A, E> => {
    const decoded = fast(data)
    return decoded === undefined ? schema(data) : Effect.succeed(decoded)
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
   * Measures the exchange's clock (`GET /api/v2/public/time`, or `/api/v3/time` on v3), makes the signer use it, and
   * returns the offset in ms (exchange minus local). Calls do this by themselves when the
   * exchange rejects their timestamp; call it up front to avoid that first rejection.
   */
  readonly syncClock: Effect.Effect<number, BillsError>
  /** Every funding bill of the query, exactly once; pages are fetched as the stream is pulled. */
  readonly streamFundingBills: (query?: FundingBillsQuery) => Stream.Stream<FundingBill, BillsError>
  /** Every spot bill of the query, exactly once; time windows are fetched as the stream is pulled. */
  readonly streamSpotBills: (query?: SpotBillsQuery) => Stream.Stream<SpotBill, BillsError>
  /** The funding walk page by page, each page with the cursor to resume after it. */
  readonly streamFundingPages: (query?: FundingBillsQuery) => Stream.Stream<FundingPage, BillsError>
  /** The spot walk page by page, each page with the cursor to resume after it. */
  readonly streamSpotPages: (query?: SpotBillsQuery) => Stream.Stream<SpotPage, BillsError>
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
    const { decode, request, syncClock } = yield* makeExchangeRequest
    // The fast path takes every well-formed page; anything else goes to the schema, which
    // decides and names the field that is wrong. The calls here take parameters already valid:
    // the streams build theirs from a checked cursor and come here directly, in their own span.
    const decodeFunding = decodeWith(FastDecode.fundingBillsPage, decode("fundingBills", FundingBillsPage))
    const decodeSpot = decodeWith(FastDecode.spotBills, decode("spotBills", SpotBills))
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

    return BillsApi.fromOperations({ fetchFunding, fetchSpot, syncClock })
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
    /** What `syncClock` does; a source with no clock of its own measures nothing (0). */
    readonly syncClock?: Effect.Effect<number, BillsError> | undefined
  }): BillsApiShape => {
    const { fetchFunding, fetchSpot } = operations
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
    return BillsApi.of({
      fundingBills,
      spotBills,
      syncClock: operations.syncClock ?? Effect.succeed(0),
      ...makeStreams({ fetchFunding, fetchSpot })
    })
  }

  /** The client layer; needs an HttpClient, a Signer, a BillsRateLimiter and BillsConfig. */
  static readonly layer: Layer.Layer<BillsApi, never, HttpClient.HttpClient | Signer | BillsRateLimiter | BillsConfig> =
    Layer.effect(BillsApi, BillsApi.make)
}
