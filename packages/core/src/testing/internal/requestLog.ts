/**
 * The fake exchange's request log and counters: every request in arrival order with its call
 * numbers and outcome, and per-operation statistics.
 */
import type { OperationName } from "../../Operation.js"
import type { FakeStats, LoggedRequest } from "../FakeExchange.js"
import type { FakeRequest } from "../FakeProtocol.js"

/**
 * A log entry whose call numbers and outcome are filled in as the request is handled.
 */
export type LogEntry = { -readonly [K in keyof LoggedRequest]: LoggedRequest[K] }

/**
 * How an operation's request ended, for the statistics.
 */
export type Tally = "succeeded" | "rejected" | "rateLimited" | "faulted"

/**
 * The log; mutable, used only inside `Effect.sync` by the fake exchange.
 */
export interface RequestLog {
  /** Logs a request as it arrives; `operation` is what its route names. */
  readonly arrive: (
    request: FakeRequest,
    operation: OperationName | "serverTime" | undefined,
    now: number,
    params: unknown
  ) => LogEntry
  /** Numbers a request that reached an operation: among all calls and among its operation's. */
  readonly numberCall: (entry: LogEntry, operation: OperationName) => void
  readonly tally: (operation: OperationName, how: Tally) => void
  /** Calls so far, over both operations or of one. */
  readonly calls: (operation?: OperationName) => number
  readonly requests: () => ReadonlyArray<LoggedRequest>
  readonly stats: () => FakeStats
  readonly reset: () => void
}

interface Counters {
  arrivals: number
  calls: number
  serverTimeRequests: number
  operationCalls: Record<OperationName, number>
  stats: Record<OperationName, Record<"requests" | Tally, number>>
}

const emptyStats = () => ({ requests: 0, succeeded: 0, rejected: 0, rateLimited: 0, faulted: 0 })

const fresh = (): Counters => ({
  arrivals: 0,
  calls: 0,
  serverTimeRequests: 0,
  operationCalls: { fundingBills: 0, spotBills: 0, contractBills: 0 },
  stats: { fundingBills: emptyStats(), spotBills: emptyStats(), contractBills: emptyStats() }
})

/**
 * An empty request log.
 */
export const makeRequestLog = (): RequestLog => {
  let log: Array<LogEntry> = []
  let counters = fresh()
  return {
    arrive: (request, operation, now, params) => {
      counters.arrivals++
      if (operation === "serverTime") counters.serverTimeRequests++
      const entry: LogEntry = {
        arrival: counters.arrivals,
        arrivalMillis: now,
        method: request.method,
        path: request.path,
        query: request.query,
        operation,
        call: undefined,
        operationCall: undefined,
        body: request.body,
        params,
        timestamp: request.headers["access-timestamp"],
        outcome: { _tag: "Pending" }
      }
      log.push(entry)
      return entry
    },
    numberCall: (entry, operation) => {
      entry.call = ++counters.calls
      entry.operationCall = ++counters.operationCalls[operation]
      counters.stats[operation].requests++
    },
    tally: (operation, how) => {
      counters.stats[operation][how]++
    },
    calls: (operation) => (operation === undefined ? counters.calls : counters.operationCalls[operation]),
    requests: () => log.map((entry) => ({ ...entry })),
    stats: () => ({
      requests: counters.arrivals,
      serverTimeRequests: counters.serverTimeRequests,
      fundingBills: { ...counters.stats.fundingBills },
      spotBills: { ...counters.stats.spotBills },
      contractBills: { ...counters.stats.contractBills }
    }),
    reset: () => {
      log = []
      counters = fresh()
    }
  }
}
