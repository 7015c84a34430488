/**
 * The far rows in a deterministic model: the same export as `farExchange.ts` (10,000 bills in the
 * last 90 days, newest first, bounds inclusive, the strict 10-per-second window, `roundTripMillis`
 * away: half before the exchange counts a request, half after), against the in-memory fake under
 * the TestClock, where the client's CPU costs no time. What is left is the walk's rules, so the
 * share of the walk's ceiling is the same on every run and on any machine; the loopback rows beside
 * it add the machine's load. `pnpm tsx bench/farModel.ts` prints the request log of each export.
 */
import { BillsApi, type BillKind, operationOf } from "@account-bills/core"
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { farHistory, walkCeiling } from "./farExchange.js"

const windowMillis = 1000
/** The end of the generated history: a fixed time, so that every run reads the same bills. */
const end = Date.UTC(2026, 0, 1)

/** One export in the model. */
export interface FarModelRow {
  readonly apiVersion: "v2" | "v3"
  readonly account: BillKind
  readonly roundTripMillis: number
  /** Each way up to half this longer, from a fixed seed (0: the steady route). */
  readonly jitterMillis: number
  readonly bills: number
  readonly distinct: number
  readonly expected: number
  readonly requests: number
  readonly rejected: number
  /** requests ÷ (first to last arrival + one window), per second. */
  readonly requestsPerSecond: number
  readonly walkCeilingPerSecond: number
  /** `requestsPerSecond` ÷ `walkCeilingPerSecond`. */
  readonly share: number
  /** Arrival of each request at the exchange, ms after the first. */
  readonly arrivals: ReadonlyArray<number>
}

const exportOnce = (options: {
  readonly apiVersion: "v2" | "v3"
  readonly account: BillKind
  readonly roundTripMillis: number
  readonly jitterMillis: number
  readonly count: number
}) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(end + windowMillis)
    const api = yield* BillsApi
    const ids = new Set<string>()
    let bills = 0
    const stream: Stream.Stream<{ readonly billId: string }, unknown> =
      options.account === "funding"
        ? api.streamFundingBills()
        : options.account === "spot"
          ? api.streamSpotBills()
          : api.streamContractBills()
    const fiber = yield* Effect.fork(
      Stream.runForEach(stream, (bill) =>
        Effect.sync(() => {
          bills++
          ids.add(bill.billId)
        })
      )
    )
    while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust(10)
    yield* Fiber.join(fiber)
    const exchange = yield* FakeExchange
    const operation = operationOf[options.account]
    const log = (yield* exchange.requests).filter((request) => request.operation === operation)
    const first = log[0]?.arrivalMillis ?? 0
    const arrivals = log.map((request) => request.arrivalMillis - first)
    const requests = arrivals.length
    const requestsPerSecond = (requests * 1000) / ((arrivals[requests - 1] ?? 0) + windowMillis)
    const ceiling = walkCeiling(requests, options.roundTripMillis)
    return {
      ...options,
      expected: options.count,
      bills,
      distinct: ids.size,
      requests,
      rejected: (yield* exchange.stats)[operation].rateLimited,
      requestsPerSecond,
      walkCeilingPerSecond: ceiling,
      share: requestsPerSecond / ceiling,
      arrivals
    } satisfies FarModelRow & { readonly count: number }
  }).pipe(
    Effect.provide(
      TestBillsApi.layerStack({
        apiVersion: options.apiVersion,
        rateLimit: {},
        exchange: farHistory(options.account, options.count, end, options.roundTripMillis, options.jitterMillis)
      })
    ),
    Effect.provide(TestContext.TestContext)
  )

/** Each account at each round trip, in the model. */
export const farModel = (options: {
  readonly count: number
  readonly roundTrips: ReadonlyArray<number>
  readonly accounts: ReadonlyArray<BillKind>
  readonly apiVersions?: ReadonlyArray<"v2" | "v3">
  /** Jitters to model besides the steady route (default: only 0). */
  readonly jitters?: ReadonlyArray<number>
}): Promise<ReadonlyArray<FarModelRow>> =>
  Effect.runPromise(
    Effect.forEach(
      (options.apiVersions ?? (["v2"] as const)).flatMap((apiVersion) =>
        options.roundTrips.flatMap((roundTripMillis) =>
          (options.jitters ?? [0]).flatMap((jitterMillis) =>
            options.accounts.map((account) => ({
              apiVersion,
              account,
              roundTripMillis,
              jitterMillis,
              count: options.count
            }))
          )
        )
      ),
      exportOnce
    )
  )

/** The request log of a row: each arrival, and the gap to the one before. */
export const requestLog = (row: FarModelRow): string =>
  row.arrivals.map((at, i) => `${i + 1}:${at}(+${at - (row.arrivals[i - 1] ?? at)})`).join(" ")

if (process.argv[1]?.endsWith("farModel.ts")) {
  const listed = (flag: string, fallback: ReadonlyArray<string>) =>
    process.argv.includes(flag) ? (process.argv[process.argv.indexOf(flag) + 1] ?? "").split(",") : fallback
  const rows = await farModel({
    count: 10_000,
    roundTrips: listed("--rtt", ["150", "300"]).map(Number),
    accounts: listed("--accounts", ["contract", "spot"]) as ReadonlyArray<BillKind>,
    apiVersions: listed("--versions", ["v2"]) as ReadonlyArray<"v2" | "v3">,
    jitters: listed("--jitter", ["0"]).map(Number)
  })
  for (const row of rows) {
    console.log(
      `${row.apiVersion} ${row.account} ${row.roundTripMillis} ms jitter ${row.jitterMillis}: ${row.requests} requests, share ${row.share.toFixed(3)} (${row.requestsPerSecond.toFixed(2)} of ${row.walkCeilingPerSecond.toFixed(2)}), ${row.rejected} x 429, ${row.distinct}/${row.expected} bills`
    )
    if (process.argv.includes("--log")) console.log(requestLog(row))
  }
}
