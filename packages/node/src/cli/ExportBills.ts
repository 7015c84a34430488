/**
 * The export job: streams one account's bills through the client and writes them as lines,
 * with progress on stderr.
 *
 * @since 0.1.0
 */
import {
  BillsApi,
  type BillsError,
  type FundingBill,
  InvalidParams,
  isFundingBizType,
  isSpotBizType,
  type SpotBill
} from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { type Account, type ExportFormat, header, line } from "./BillFormat.js"
import { type CoinSummary, makeCoinTally } from "./CoinSummary.js"
import * as LineSink from "./LineSink.js"
import { makeProgress, type ProgressCounts } from "./Progress.js"

/**
 * What to export, already validated.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportRequest {
  readonly account: Account
  readonly format: ExportFormat
  readonly from?: number
  readonly to?: number
  readonly coinId?: number
  readonly bizType?: string
  /** A file path; standard output when absent. */
  readonly out?: string
}

/**
 * What an export did.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportSummary extends ProgressCounts {
  readonly account: Account
  readonly coins: ReadonlyArray<CoinSummary>
}

/**
 * Runs one export. `requests` reads how many HTTP requests have been sent so far.
 *
 * @since 0.1.0
 * @category utils
 */
export const exportBills = (
  request: ExportRequest,
  options: { readonly live: boolean; readonly requests: Effect.Effect<number> }
): Effect.Effect<ExportSummary, BillsError | LineSink.OutputError | LineSink.OutputClosed, BillsApi> =>
  Effect.gen(function* () {
    const api = yield* BillsApi
    const sink = yield* LineSink.open(request.out)
    const progress = yield* makeProgress(request.account, options.live)
    const tally = makeCoinTally()
    const query = {
      ...(request.from === undefined ? {} : { from: request.from }),
      ...(request.to === undefined ? {} : { to: request.to }),
      ...(request.coinId === undefined ? {} : { coinId: request.coinId })
    }
    const bizType = request.bizType
    const filterError = (rule: string) =>
      new InvalidParams({
        operation: request.account === "funding" ? "fundingBills" : "spotBills",
        field: "bizType",
        rule
      })
    let pages: Stream.Stream<{ readonly bills: ReadonlyArray<FundingBill | SpotBill> }, BillsError>
    if (request.account === "funding") {
      if (bizType !== undefined && !isFundingBizType(bizType))
        return yield* filterError(`${bizType} is not a funding bizType`)
      pages = api.streamFundingPages({ ...query, ...(bizType === undefined ? {} : { bizType }) })
    } else {
      if (bizType !== undefined && !isSpotBizType(bizType))
        return yield* filterError(`${bizType} is not a spot bizType`)
      pages = api.streamSpotPages({ ...query, ...(bizType === undefined ? {} : { bizType }) })
    }
    let bills = 0
    let pageCount = 0
    yield* sink.write(header(request.format, request.account))
    yield* Stream.runForEach(pages, (page) =>
      Effect.gen(function* () {
        yield* sink.write(page.bills.map((bill) => line(request.format, request.account, bill)).join(""))
        bills += page.bills.length
        pageCount += 1
        tally.add(page.bills)
        yield* progress.update({ bills, pages: pageCount, requests: yield* options.requests })
      })
    )
    const counts = yield* progress.finish({ bills, pages: pageCount, requests: yield* options.requests })
    return { ...counts, account: request.account, coins: tally.summary() }
  }).pipe(Effect.scoped)
