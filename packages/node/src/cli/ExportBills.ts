/**
 * The export job: streams one account's bills through the client and writes them as lines,
 * with progress on stderr.
 *
 * @since 0.1.0
 */
import { BillsApi, type BillsError } from "@account-bills/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import {
  type Account,
  type AnyBill,
  accountsOf,
  type ExportAccount,
  type ExportFormat,
  header,
  line,
  taggedLine
} from "./BillFormat.js"
import { type CoinSummary, makeCoinTally } from "./CoinSummary.js"
import { type FuturesRefused, futuresRefusal, skippedLine } from "./FuturesRefused.js"
import * as LineSink from "./LineSink.js"
import { fundingProgress, type PageProgress, servedFromNote, spotProgress } from "./PageProgress.js"
import { count, makeProgress, minute, type ProgressCounts, type ProgressSnapshot } from "./Progress.js"

/**
 * What to export, already validated.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportRequest {
  /** `all`: the three accounts at once, each line tagged with its account (see BillFormat.ts). */
  readonly account: ExportAccount
  readonly format: ExportFormat
  readonly from?: number
  readonly to?: number
  readonly coinId?: number
  readonly bizType?: string
  /** A file path; standard output when absent. */
  readonly out?: string
  /** Requests each account's walk may have in flight; the library's default when absent. */
  readonly concurrency?: number
}

/**
 * What the export of one account did.
 *
 * @since 0.1.0
 * @category models
 */
export interface AccountSummary extends ProgressCounts {
  readonly account: Account
  readonly coins: ReadonlyArray<CoinSummary>
}

/**
 * What an export did: the sums, and each account on its own.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExportSummary extends ProgressCounts {
  readonly account: ExportAccount
  readonly accounts: ReadonlyArray<AccountSummary>
  /** With `all`: the futures interface refused the key, so the contract account was not read. */
  readonly contractRefused?: FuturesRefused | undefined
}

/** One page of any walk, with how far its walk has come. */
interface Step extends PageProgress {
  readonly account: Account
  readonly bills: ReadonlyArray<AnyBill>
}

interface Counts {
  bills: number
  pages: number
  requests: number
  reached: number | undefined
  servedFrom: number | undefined
  readonly tally: ReturnType<typeof makeCoinTally>
}

/** What an account had written when the export was interrupted. */
const interruptedLine = (label: string, snapshot: ProgressSnapshot): string =>
  `${label}: interrupted after ${count(snapshot.bills, "bill")} written (${count(snapshot.pages, "page")})${snapshot.reached === undefined ? "" : `, reached ${minute(snapshot.reached)}`}`

const interruptedHint =
  "bills: interrupted; the output holds whole lines only. An export starts over when run again; bills sync keeps what it has read and resumes"

/**
 * Runs one export. `requests` reads how many HTTP requests have been sent so far, for an
 * account (a function) or for the one account exported (an effect); without a count per
 * account, an export of all shows each walk's own count. With `all`, a key the futures interface
 * refuses is said in one line and the other two accounts are exported; with `contract` alone, it
 * fails with `FuturesRefused`.
 *
 * @since 0.1.0
 * @category utils
 */
export const exportBills = (
  request: ExportRequest,
  options: {
    readonly live: boolean
    readonly requests: Effect.Effect<number> | ((account: Account) => Effect.Effect<number>)
    /**
     * Several accounts one after the other, in `accountsOf`'s order, instead of side by side:
     * a store answers at once, so the order can be the same on every run at no cost.
     */
    readonly inTurn?: boolean | undefined
  }
): Effect.Effect<ExportSummary, BillsError | FuturesRefused | LineSink.OutputError | LineSink.OutputClosed, BillsApi> =>
  Effect.gen(function* () {
    const api = yield* BillsApi
    // A coin id names a coin of the funding and spot accounts; the futures account names assets
    // (the ledger leaves it out the same way).
    const coinOnly = request.account === "all" && request.coinId !== undefined
    const accounts = accountsOf(request.account).filter((account) => !(coinOnly && account === "contract"))
    const query = {
      ...(request.from === undefined ? {} : { from: request.from }),
      ...(request.to === undefined ? {} : { to: request.to }),
      ...(request.coinId === undefined ? {} : { coinId: request.coinId }),
      ...(request.concurrency === undefined ? {} : { concurrency: request.concurrency })
    }
    const bizType = request.bizType
    // Every filter is sent as given, documented or not (the flags checked its shape, and warned).
    const steps = (account: Account): Stream.Stream<Step, BillsError> => {
      if (account === "contract") {
        const { coinId: _, ...window } = query
        return Stream.map(
          api.streamContractPages({ ...window, ...(bizType === undefined ? {} : { incomeType: bizType }) }),
          (page): Step => ({ account, bills: page.bills, ...spotProgress(page) })
        )
      }
      if (account === "funding") {
        return Stream.map(
          api.streamFundingPages({ ...query, ...(bizType === undefined ? {} : { bizType }) }),
          (page): Step => ({ account, bills: page.bills, ...fundingProgress(page) })
        )
      }
      return Stream.map(
        api.streamSpotPages({ ...query, ...(bizType === undefined ? {} : { bizType }) }),
        (page): Step => ({ account, bills: page.bills, ...spotProgress(page) })
      )
    }
    const walks = accounts.map(steps)
    const sink = yield* LineSink.open(request.out)
    const progress = yield* makeProgress(accounts, options.live)
    if (coinOnly) {
      yield* progress.note("contract: left out, --coin-id names a coin of the funding and spot accounts only")
    }
    const requestsOf = (step: { readonly account: Account; readonly requests: number }) =>
      typeof options.requests === "function"
        ? options.requests(step.account)
        : accounts.length === 1
          ? options.requests
          : Effect.succeed(step.requests)
    const tagged = request.account === "all"
    const state = new Map<Account, Counts>(
      accounts.map((account) => [
        account,
        { bills: 0, pages: 0, requests: 0, reached: undefined, servedFrom: undefined, tally: makeCoinTally() }
      ])
    )
    const countsOf = (account: Account) => state.get(account) as Counts
    const summaries: Array<AccountSummary> = []
    const finish = (account: Account) =>
      Effect.gen(function* () {
        const counts = countsOf(account)
        const requests = yield* requestsOf({ account, requests: counts.requests })
        const done = yield* progress.finish(account, { bills: counts.bills, pages: counts.pages, requests })
        summaries.push({ ...done, account, coins: counts.tally.summary() })
      })
    let contractRefused: FuturesRefused | undefined
    // With all accounts, a key the futures interface refuses ends the contract walk with one
    // line; the other walks go on. Alone, the refusal is the export's failure.
    const refusable = (account: Account, walk: Stream.Stream<Step, BillsError>) =>
      Stream.catchAll(
        walk,
        (
          error
        ): Stream.Stream<Step | { readonly account: Account; readonly refused: true }, BillsError | FuturesRefused> => {
          const refused = futuresRefusal(error)
          if (refused === undefined) return Stream.fail(error)
          if (!tagged) return Stream.fail(refused)
          contractRefused = refused
          return Stream.succeed({ account, refused: true } as const)
        }
      )
    // Each walk ends with a mark, so an account's summary line comes when that account is done.
    const marked = walks.map((walk, i) =>
      Stream.concat(
        refusable(accounts[i] as Account, walk),
        Stream.succeed({ account: accounts[i] as Account, end: true } as const)
      )
    )
    // Walks under separate limits run side by side; each page is written whole, so lines never
    // interleave. One walk is consumed directly: nothing is read ahead of the writer.
    const merged =
      marked.length === 1
        ? (marked[0] as (typeof marked)[number])
        : options.inTurn === true
          ? Stream.concatAll(Chunk.fromIterable(marked))
          : Stream.mergeAll(marked, { concurrency: "unbounded" })
    yield* sink.write(header(request.format, request.account))
    yield* Stream.runForEach(merged, (step) =>
      "refused" in step
        ? progress.end(step.account, skippedLine(contractRefused as FuturesRefused))
        : "end" in step
          ? step.account === "contract" && contractRefused !== undefined
            ? Effect.void
            : finish(step.account)
          : Effect.gen(function* () {
              yield* sink.write(
                step.bills
                  .map((bill) =>
                    tagged ? taggedLine(request.format, step.account, bill) : line(request.format, step.account, bill)
                  )
                  .join("")
              )
              const counts = countsOf(step.account)
              counts.bills += step.bills.length
              counts.pages += 1
              counts.tally.add(step.bills)
              counts.requests = yield* requestsOf(step)
              counts.reached = step.reached ?? counts.reached
              if (step.servedFrom !== undefined && counts.servedFrom === undefined) {
                counts.servedFrom = step.servedFrom
                yield* progress.note(servedFromNote(step.account, step.servedFrom))
              }
              yield* progress.update(step.account, { ...counts, share: step.share })
            })
    ).pipe(Effect.onInterrupt(() => progress.interrupted(interruptedLine, interruptedHint)))
    summaries.sort((a, b) => accounts.indexOf(a.account) - accounts.indexOf(b.account))
    return {
      account: request.account,
      bills: summaries.reduce((sum, s) => sum + s.bills, 0),
      pages: summaries.reduce((sum, s) => sum + s.pages, 0),
      requests: summaries.reduce((sum, s) => sum + s.requests, 0),
      elapsedMillis: Math.max(...summaries.map((s) => s.elapsedMillis)),
      accounts: summaries,
      contractRefused
    }
  }).pipe(Effect.scoped)
