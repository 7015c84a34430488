/**
 * `FakeExchange`: an in-memory model of the Account Bill Ledger Query Interface (WEEX spot v2
 * `/api/v2/account/fundingBills` and `/api/v2/account/bills`), written from the interface
 * description and independent of the client's validation, so that it catches client bugs.
 *
 * Request handling, in this order (codes: see the table in `FakeProtocol`):
 * 1. route: `GET /api/v2/public/time` answers the fake's clock (never limited, faulted or counted
 *    as a call); unknown paths 404, wrong methods 405;
 * 2. faults, decided at arrival: scripted by call number (over both operations or per operation),
 *    then the permanent fault, then seeded random faults;
 * 3. the sliding-window rate limit per operation (429). Faulted requests use capacity (they
 *    reached the server) except injected 429s; rejected requests do not;
 * 4. headers and signature (40001..40009), then Content-Type and body (40017, 40704, 40707);
 * 5. the page: bills sorted by (cTime, billId), filtered by coinId, bizType and the time window,
 *    in the configured `order` with `bounds` inclusive or exclusive at both ends.
 *
 * Every time comes from `Clock` plus a settable offset, so everything runs under `TestClock`.
 * `apiVersion: "v3"` serves the same model on the v3 paths and in v3's bodies (`FakeProtocol`).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type { ApiVersion } from "../BillsConfig.js"
import { successCode } from "../internal/protocol.js"
import type { OperationName } from "../Operation.js"
import * as Signature from "../Signature.js"
import type * as BillBook from "./BillBook.js"
import * as BillGenerator from "./BillGenerator.js"
import * as FakeHttpClient from "./FakeHttpClient.js"
import type { LatencyOptions } from "./Latency.js"
import * as LazyBillBook from "./LazyBillBook.js"
import * as StillClock from "./internal/stillClock.js"
import {
  envelope,
  type FakeFault,
  type FakeRequest,
  FakeResponse,
  htmlPage,
  jsonResponse,
  type RandomFaults,
  type Rejection,
  reasonPhrase,
  rejections,
  type ScriptedFault
} from "./FakeProtocol.js"
import { makeAuthentication } from "./internal/authentication.js"
import { makeFaultPlan } from "./internal/faultPlan.js"
import {
  type Books,
  makeQueries,
  type NumericIds,
  rejectionAnswer,
  seedBooks,
  seedContract
} from "./internal/queries.js"
import { type LogEntry, makeRequestLog } from "./internal/requestLog.js"
import { type WireFormat, wireFormats } from "./internal/wireFormat.js"
import * as SlidingWindow from "./SlidingWindow.js"
import type { Account, ContractWireBill, FundingWireBill, SpotWireBill, WireBill, WireBillOf } from "./WireBill.js"

/**
 * The API key, secret and passphrase the fake exchange accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeCredentials {
  readonly apiKey: string
  readonly secret: string
  readonly passphrase: string
}

/**
 * Credentials used when none are given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCredentials: FakeCredentials = {
  apiKey: "fake-key",
  secret: "fake-secret",
  passphrase: "fake-passphrase"
}

/**
 * Generated bills at construction: counts per account over `[startMillis, endMillis]`.
 *
 * @since 0.1.0
 * @category models
 */
export interface GenerateBillsOptions extends BillGenerator.GeneratorOptions {
  /** Default 100. */
  readonly funding?: number | undefined
  /** Default 100. */
  readonly spot?: number | undefined
  /**
   * Bills of the futures account's own (trading, funding fees, ...), besides one transfer for
   * each funding or spot transfer it takes part in; see `BillGenerator.generateContract`. When
   * absent the futures account holds no generated bills. Not with `lazy`. With `linked`, every
   * transfer is between funding and spot (both legs there), so the futures account takes none.
   * Since 0.2.0.
   */
  readonly contract?: number | undefined
  /** Default 2025-01-01T00:00:00Z. */
  readonly startMillis?: number | undefined
  /** Default `startMillis` + 90 days. */
  readonly endMillis?: number | undefined
  readonly sameMillisecondGroup?: BillGenerator.SameMillisecondGroup | undefined
  /**
   * Compute bills on demand instead of storing them ({@link LazyBillBook}): a million bills
   * in constant memory. At most one bill per millisecond (`sameMillisecondGroup` is ignored),
   * and not the bills the eager generator draws from the same seed. Default false.
   */
  readonly lazy?: boolean | undefined
  /**
   * Book trades as two spot legs and transfers between funding and spot with both legs
   * (`BillGenerator.generateLinked`); `funding` + `spot` is then the count of both accounts'
   * bills together. Not with `lazy`. Default false.
   *
   * @since 0.2.0
   */
  readonly linked?: boolean | undefined
  /**
   * With `linked`, the hard cases of the books to generate (see `BillGenerator.LinkedBatch`): the
   * leg a trade's fee is on, ambiguous groups of one fill, dropped legs, ids against the chain
   * in a millisecond. Default none, the bills a seed always gave. Since 0.3.0.
   */
  readonly linkedCases?: LinkedCases | undefined
}

/**
 * The hard cases a linked history can hold (`GenerateBillsOptions.linkedCases`).
 *
 * @since 0.3.0
 * @category models
 */
export type LinkedCases = Pick<
  BillGenerator.LinkedBatch,
  "tradeFees" | "ambiguousEvery" | "dropLegEvery" | "idsAgainstChain"
>

/**
 * The behaviours the interface leaves open, and the limits; all can change at runtime.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeBehaviour {
  /** Default `"newest-first"`. */
  readonly order: BillBook.Order
  /** Default `"inclusive"`; applies to the start and end bound alike. */
  readonly bounds: BillBook.Bounds
  /** Default 10 per 1000 ms per operation; `false` disables it. */
  readonly rateLimit: SlidingWindow.RateLimit
  /** Largest accepted distance between ACCESS-TIMESTAMP and the fake's clock; default 30 000. */
  readonly maxSkewMillis: number
  /** When set, a start bound older than this (from the fake's clock) fails with 40704. */
  readonly lookbackMillis: number | undefined
  /**
   * When set, a window wider than this fails with 40704 (the code the horizon shares): the end
   * bound (default the fake's clock) minus the start bound, a missing start counting as unbounded.
   */
  readonly maxWindowMillis: number | undefined
}

/**
 * How to build a fake exchange. Bills come from `bills`, `generate`, or both (then balances
 * chain exactly only within each source).
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeExchangeOptions extends Partial<FakeBehaviour> {
  readonly bills?:
    | {
        readonly funding?: ReadonlyArray<FundingWireBill> | undefined
        readonly spot?: ReadonlyArray<SpotWireBill> | undefined
        /** Since 0.2.0. */
        readonly contract?: ReadonlyArray<ContractWireBill> | undefined
      }
    | undefined
  /**
   * Which contract ids the fake writes as bare JSON numbers: `"all"` (the default, as the docs'
   * samples write them, `686960019383517338`), `"some"` (those ending in an even digit) or
   * `"none"` (digit strings, as other public samples write them). Since 0.2.0.
   */
  readonly contractNumericIds?: NumericIds | undefined
  /**
   * The futures host's answers in the other forms public material shows, beside what its docs
   * show (the default). Since 0.3.0.
   */
  readonly contractWire?: ContractWireOptions | undefined
  /**
   * The futures host's own clock, added to `Clock.currentTimeMillis` for its time endpoint and
   * its requests' timestamps; default the spot host's (`clockOffsetMillis`). Since 0.3.0.
   */
  readonly contractClockOffsetMillis?: number | undefined
  readonly generate?: GenerateBillsOptions | undefined
  readonly credentials?: FakeCredentials | undefined
  /** Added to `Clock.currentTimeMillis` to give the fake's clock; default 0. */
  readonly clockOffsetMillis?: number | undefined
  /**
   * The interface version served (default `"v2"`): paths, success and failure bodies as that
   * version has them (see `FakeProtocol`). The model behind both is the same.
   */
  readonly apiVersion?: ApiVersion | undefined
  /** The round trip of the in-memory `HttpClient` and the loopback server (default none). */
  readonly latency?: LatencyOptions | undefined
  readonly faults?:
    | {
        readonly scripted?: ReadonlyArray<ScriptedFault> | undefined
        readonly permanent?: FakeFault | undefined
        readonly random?: RandomFaults | undefined
      }
    | undefined
}

/**
 * The futures host's answers in forms beside its docs' (see `FakeExchangeOptions.contractWire`).
 *
 * @since 0.3.0
 * @category models
 */
export interface ContractWireOptions {
  /**
   * v2: the page inside the spot host's envelope, `{"code": "00000", "msg", "requestTime",
   * "data": [...]}`, as the client once assumed; default `false`, the docs' bare
   * `{"hasNextPage", "items"}`.
   */
  readonly envelope?: boolean | undefined
  /** v2: `ctime` as a digit string; default `false`, a JSON number as the docs' sample. */
  readonly timesAsText?: boolean | undefined
  /**
   * v3: the cursor of a page that says more: `"object"` (the default,
   * `{"nextKeyId", "nextKeyTime"}`), `"null"` or `"missing"`.
   */
  readonly nextKey?: "object" | "null" | "missing" | undefined
  /**
   * v3: `"missing"` leaves `hasNextPage` out of every answer (the cursor alone says more
   * follow), as an answer that carries only what the docs mark required would; default
   * `"sent"`. Pages are then never cut short of the limit (`pageSize` is not for it): nothing
   * would say that more follow a short page. Since 0.3.0.
   */
  readonly hasNextPage?: "sent" | "missing" | undefined
  /**
   * The most bills the host lists on one page, whatever the request's `limit`, saying
   * `hasNextPage: true` when more follow: a page shorter than the limit that says more, as the
   * docs' samples show one (one bill, `hasNextPage: true`). Default: the request's limit; v2's
   * envelope, which carries no `hasNextPage`, is never cut short.
   */
  readonly pageSize?: number | undefined
}

/**
 * What became of a logged request.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeOutcome =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Answered"; readonly status: number; readonly code: string | undefined }
  | { readonly _tag: "Faulted"; readonly fault: FakeFault }

/**
 * One received request, for assertions.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoggedRequest {
  /** 1-based over every request since the last reset. */
  readonly arrival: number
  /** The fake's clock at arrival (epoch ms). */
  readonly arrivalMillis: number
  readonly method: string
  readonly path: string
  readonly query: string
  readonly operation: OperationName | "serverTime" | undefined
  /** 1-based over both operations (what `ScriptedFault.nth` counts without `operation`). */
  readonly call: number | undefined
  /** 1-based within the operation (what `ScriptedFault.nth` counts with `operation`). */
  readonly operationCall: number | undefined
  readonly body: string
  /** The body parsed as JSON; `undefined` when it is not JSON. */
  readonly params: unknown
  readonly timestamp: string | undefined
  readonly outcome: FakeOutcome
}

/**
 * Counters of one operation.
 *
 * @since 0.1.0
 * @category models
 */
export interface OperationStats {
  readonly requests: number
  /** Answered with code 00000. */
  readonly succeeded: number
  /** Answered with an envelope failure other than the rate limit. */
  readonly rejected: number
  /** Refused by the sliding-window limit. */
  readonly rateLimited: number
  readonly faulted: number
}

/**
 * All counters.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeStats {
  readonly requests: number
  readonly serverTimeRequests: number
  readonly fundingBills: OperationStats
  readonly spotBills: OperationStats
  /** Since 0.2.0. */
  readonly contractBills: OperationStats
}

/**
 * The fake exchange's handle: the model, its request handler and the knobs tests turn.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeExchangeService {
  /** The platform-free handler every transport (in-memory client, loopback server) calls. */
  readonly handle: (request: FakeRequest) => Effect.Effect<FakeResponse>
  readonly credentials: FakeCredentials
  /** The interface version the fake serves. */
  readonly apiVersion: ApiVersion
  /** The fake's clock: `Clock.currentTimeMillis` + offset. */
  readonly serverTime: Effect.Effect<number>
  readonly setClockOffset: (millis: number) => Effect.Effect<void>
  readonly behaviour: Effect.Effect<FakeBehaviour>
  readonly configure: (changes: Partial<FakeBehaviour>) => Effect.Effect<void>
  /** All bills of an account in canonical (cTime, billId) order, oldest first. */
  readonly bills: <A extends Account>(account: A) => Effect.Effect<ReadonlyArray<WireBillOf[A]>>
  /** Adds wire bills; balances chain exactly only if they come last and chain themselves. */
  readonly append: <A extends Account>(account: A, bills: ReadonlyArray<WireBillOf[A]>) => Effect.Effect<void>
  /** The futures account's bills, oldest first. Since 0.2.0. */
  readonly contractBills: Effect.Effect<ReadonlyArray<ContractWireBill>>
  /** Adds bills to the futures account (their balances are taken as given). Since 0.2.0. */
  readonly appendContract: (bills: ReadonlyArray<ContractWireBill>) => Effect.Effect<void>
  /**
   * Generates `count` bills continuing the balances, with cTime from
   * max(last cTime, the fake's clock) by default, about one per millisecond.
   */
  readonly appendGenerated: <A extends Account>(
    account: A,
    count: number,
    options?: Partial<BillGenerator.BatchOptions>
  ) => Effect.Effect<ReadonlyArray<WireBillOf[A]>>
  /** Adds scripted faults (call numbers count since the last reset). */
  readonly injectFaults: (faults: ReadonlyArray<ScriptedFault>) => Effect.Effect<void>
  /** Faults the next `count` (default 1) calls, over both operations or of one. */
  readonly failNext: (
    fault: FakeFault,
    options?: { readonly operation?: OperationName | undefined; readonly count?: number | undefined }
  ) => Effect.Effect<void>
  /** A fault for every call until cleared with `undefined`. */
  readonly setPermanentFault: (fault: FakeFault | undefined) => Effect.Effect<void>
  readonly setRandomFaults: (random: RandomFaults | undefined) => Effect.Effect<void>
  /** Removes scripted, permanent and random faults. */
  readonly clearFaults: Effect.Effect<void>
  readonly requests: Effect.Effect<ReadonlyArray<LoggedRequest>>
  readonly stats: Effect.Effect<FakeStats>
  /**
   * Clears the log, the counters (call numbers restart at 1) and the rate windows, and restores
   * the faults given in the options. Bills, clock offset and behaviour stay.
   */
  readonly reset: Effect.Effect<void>
}

type Route =
  | { readonly _tag: "ServerTime"; readonly host: "spot" | "contract" }
  | { readonly _tag: "Operation"; readonly operation: OperationName }
  | {
      readonly _tag: "Rejected"
      readonly rejection: Rejection
      readonly operation: OperationName | "serverTime" | undefined
    }

const routeOf = (request: FakeRequest, wire: WireFormat): Route => {
  const method = request.method.toUpperCase()
  if (request.path === wire.serverTimePath || request.path === wire.contractServerTimePath) {
    return method === "GET"
      ? { _tag: "ServerTime", host: request.path === wire.serverTimePath ? "spot" : "contract" }
      : { _tag: "Rejected", rejection: rejections.methodNotAllowed, operation: "serverTime" }
  }
  for (const operation of ["fundingBills", "spotBills", "contractBills"] as const) {
    if (request.path === wire.operationPath[operation]) {
      return method === "POST"
        ? { _tag: "Operation", operation }
        : { _tag: "Rejected", rejection: rejections.methodNotAllowed, operation }
    }
  }
  return { _tag: "Rejected", rejection: rejections.notFound, operation: undefined }
}

type Verdict =
  | { readonly _tag: "Fault"; readonly fault: FakeFault }
  | { readonly _tag: "Limited" }
  | { readonly _tag: "Admitted" }

const parseJsonOrUndefined = (text: string): unknown =>
  Either.getOrUndefined(Either.try(() => JSON.parse(text) as unknown))

/**
 * Builds a fake exchange: the books and their queries, the fault plan, the rate-limit windows,
 * the request log and the authentication, composed in the order the module comment gives.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: FakeExchangeOptions = {}): Effect.Effect<FakeExchangeService> =>
  Effect.gen(function* () {
    const credentials = options.credentials ?? defaultCredentials
    const apiVersion = options.apiVersion ?? "v2"
    const wire = wireFormats[apiVersion]
    /** A JSON response in the served version's form, from the model's status and envelope. */
    const respond = (status: number, body: string): FakeResponse => {
      const rendered = wire.render(status, body)
      return jsonResponse(rendered.status, rendered.body)
    }
    const key = yield* Signature.importSecret(credentials.secret)
    const generator = BillGenerator.make(options.generate)
    const { funding, pairedTransfers, spot } = seedBooks(options, generator)
    const books: Books = { funding, spot }
    const contract = seedContract(options, books, pairedTransfers)

    // Mutable model state; only touched inside Effect.sync, so each step is atomic.
    let behaviour: FakeBehaviour = {
      order: options.order ?? "newest-first",
      bounds: options.bounds ?? "inclusive",
      rateLimit: options.rateLimit ?? SlidingWindow.defaultRateLimit,
      maxSkewMillis: options.maxSkewMillis ?? 30_000,
      lookbackMillis: options.lookbackMillis,
      maxWindowMillis: options.maxWindowMillis
    }
    let clockOffsetMillis = options.clockOffsetMillis ?? 0
    const faults = makeFaultPlan(options.faults)
    const log = makeRequestLog()
    const windows: Record<OperationName, SlidingWindow.SlidingWindow> = {
      fundingBills: SlidingWindow.make(),
      spotBills: SlidingWindow.make(),
      contractBills: SlidingWindow.make()
    }
    const authenticate = makeAuthentication(credentials, key, () => behaviour.maxSkewMillis)
    const query = makeQueries(
      books,
      contract,
      () => behaviour,
      apiVersion,
      () => options.contractNumericIds ?? "all",
      options.contractWire ?? {}
    )

    const serverTime = Effect.map(Clock.currentTimeMillis, (now) => now + clockOffsetMillis)
    /** The futures host's clock: its own offset, or the spot host's. */
    const contractTime = Effect.map(
      Clock.currentTimeMillis,
      (now) => now + (options.contractClockOffsetMillis ?? clockOffsetMillis)
    )

    /** Logs the request and decides, at arrival, whether it is faulted, limited or admitted. */
    const arrive = (request: FakeRequest, route: Route, now: number): { entry: LogEntry; verdict: Verdict } => {
      const operation =
        route._tag === "Operation" ? route.operation : route._tag === "ServerTime" ? "serverTime" : route.operation
      const entry = log.arrive(request, operation, now, parseJsonOrUndefined(request.body))
      if (route._tag !== "Operation") return { entry, verdict: { _tag: "Admitted" } }
      const op = route.operation
      log.numberCall(entry, op)
      const fault = faults.pick(op, entry.operationCall ?? 0, entry.call ?? 0)
      if (fault !== undefined) {
        log.tally(op, "faulted")
        entry.outcome = { _tag: "Faulted", fault }
        // A faulted request reached the server and uses capacity, except an injected 429.
        if (!(fault._tag === "Status" && fault.status === 429)) windows[op].record(now)
        return { entry, verdict: { _tag: "Fault", fault } }
      }
      if (!windows[op].tryAdmit(now, behaviour.rateLimit)) {
        log.tally(op, "rateLimited")
        return { entry, verdict: { _tag: "Limited" } }
      }
      return { entry, verdict: { _tag: "Admitted" } }
    }

    const answer = Effect.fnUntraced(function* (operation: OperationName, request: FakeRequest, now: number) {
      const failed = yield* authenticate(request, now)
      if (failed !== undefined) return rejectionAnswer(failed, now)
      const contentType = (request.headers["content-type"] ?? "").toLowerCase()
      if (!contentType.includes("application/json")) {
        return rejectionAnswer(rejections.parameter, now, "Content-Type must be application/json")
      }
      return query(operation, request.body, now)
    })

    const faultResponse = Effect.fnUntraced(function* (
      fault: FakeFault,
      operation: OperationName,
      request: FakeRequest,
      now: number
    ) {
      switch (fault._tag) {
        case "Status":
          return fault.status === 429
            ? respond(rejections.rateLimited.status, rejectionAnswer(rejections.rateLimited, now).body)
            : respond(fault.status, envelope(String(fault.status), reasonPhrase(fault.status), now, null))
        case "Code":
          return respond(fault.status, envelope(fault.code, fault.msg, now, null))
        case "Html":
          return FakeResponse.Response({
            status: fault.status,
            headers: { "content-type": "text/html" },
            body: htmlPage(fault.status)
          })
        case "Truncated": {
          const real = yield* answer(operation, request, now)
          const sent = real.rendered === true ? real : wire.render(real.status, real.body)
          return FakeResponse.Truncated({
            status: sent.status,
            headers: { "content-type": "application/json" },
            body: sent.body.slice(0, Math.floor(sent.body.length / 2))
          })
        }
        case "Reset":
          return FakeResponse.Reset()
        case "Hang":
          return FakeResponse.Hang()
      }
    })

    const handle = Effect.fn("FakeExchange.handle")(function* (request: FakeRequest) {
      const route = routeOf(request, wire)
      const onContractHost =
        (route._tag === "ServerTime" && route.host === "contract") ||
        (route._tag === "Operation" && route.operation === "contractBills")
      const now = yield* onContractHost ? contractTime : serverTime
      const { entry, verdict } = yield* Effect.sync(() => arrive(request, route, now))
      const settle = (status: number, code: string | undefined) =>
        Effect.sync(() => {
          entry.outcome = { _tag: "Answered", status, code }
        })
      if (route._tag === "ServerTime") {
        yield* settle(200, successCode)
        return jsonResponse(200, route.host === "spot" ? wire.serverTimeBody(now) : wire.contractServerTimeBody(now))
      }
      if (route._tag === "Rejected") {
        yield* settle(route.rejection.status, route.rejection.code)
        // A path the exchange does not serve: its gateway answers, in neither version's shape.
        return route.rejection === rejections.notFound
          ? jsonResponse(
              route.rejection.status,
              JSON.stringify({ code: route.rejection.code, msg: route.rejection.msg })
            )
          : respond(route.rejection.status, rejectionAnswer(route.rejection, now).body)
      }
      const operation = route.operation
      switch (verdict._tag) {
        case "Fault":
          return yield* faultResponse(verdict.fault, operation, request, now)
        case "Limited":
          yield* settle(rejections.rateLimited.status, rejections.rateLimited.code)
          return respond(rejections.rateLimited.status, rejectionAnswer(rejections.rateLimited, now).body)
        case "Admitted": {
          const result = yield* answer(operation, request, now)
          yield* Effect.sync(() => {
            entry.outcome = { _tag: "Answered", status: result.status, code: result.code }
            log.tally(operation, result.code === successCode ? "succeeded" : "rejected")
          })
          return result.rendered === true
            ? jsonResponse(result.status, result.body)
            : respond(result.status, result.body)
        }
      }
    })

    const appendBills = <A extends Account>(account: A, bills: ReadonlyArray<WireBillOf[A]>): void => {
      const book: BillBook.BillBook<WireBillOf[A]> = books[account]
      book.insert(bills)
      for (const bill of bills) generator.observe(account, bill as WireBill)
    }

    const service: FakeExchangeService = {
      handle,
      credentials,
      apiVersion,
      serverTime,
      setClockOffset: (millis) =>
        Effect.sync(() => {
          clockOffsetMillis = millis
        }),
      behaviour: Effect.sync(() => behaviour),
      configure: (changes) =>
        Effect.sync(() => {
          behaviour = { ...behaviour, ...changes }
        }),
      bills: (account) => Effect.sync(() => books[account].all().slice()),
      contractBills: Effect.sync(() => contract.all().slice()),
      appendContract: (bills) => Effect.sync(() => contract.insert(bills)),
      append: (account, bills) => Effect.sync(() => appendBills(account, bills)),
      appendGenerated: (account, count, batch) =>
        Effect.flatMap(serverTime, (now) =>
          Effect.sync(() => {
            const last = books[account].last()
            const floor = last === undefined ? now : Math.max(Number(last.cTime), now)
            // Never before the last bill: appended bills must keep the balance chains exact.
            const start = Math.max(batch?.startMillis ?? floor, last === undefined ? 0 : Number(last.cTime))
            const generated = generator.generate(account, {
              count,
              startMillis: start,
              endMillis: Math.max(batch?.endMillis ?? start + count, start),
              sameMillisecondGroup: batch?.sameMillisecondGroup
            })
            appendBills(account, generated)
            return generated
          })
        ),
      injectFaults: (scripted) => Effect.sync(() => faults.script(scripted)),
      failNext: (fault, next) =>
        Effect.sync(() => {
          const operation = next?.operation
          const base = log.calls(operation)
          const count = next?.count ?? 1
          for (let i = 1; i <= count; i++) faults.script([{ nth: base + i, operation, fault }])
        }),
      setPermanentFault: (fault) => Effect.sync(() => faults.setPermanent(fault)),
      setRandomFaults: (config) => Effect.sync(() => faults.setRandom(config)),
      clearFaults: Effect.sync(() => faults.clear()),
      requests: Effect.sync(() => log.requests()),
      stats: Effect.sync(() => log.stats()),
      reset: Effect.sync(() => {
        log.reset()
        windows.fundingBills.clear()
        windows.spotBills.clear()
        windows.contractBills.clear()
        faults.restore()
      })
    }
    return service
  })

/**
 * The fake's `HttpClient` under a user's own client stack (`BillsApi.layer` over
 * `FakeExchange.layer`): a request waits on the test's clock for the fake's latency, and a Hang
 * fault's answer never comes, so under `it.effect` only the test moving the clock ends either.
 * The guard ends the wait with a message instead of a test that hangs into its timeout.
 */
const guarded = (client: HttpClient.HttpClient, latency?: LatencyOptions): HttpClient.HttpClient => {
  const message = StillClock.stillMessage(
    "FakeExchange",
    "a request",
    `${latency === undefined || (latency.millis <= 0 && (latency.jitterMillis ?? 0) <= 0) ? "" : `the fake exchange's latency (${latency.millis} ms), or for `}your client's requestTimeout to end an answer that never comes (a Hang fault)`,
    "build FakeExchange.layer with no latency and no Hang fault"
  )
  return HttpClient.transform(client, (effect) => StillClock.failWhenStill(Effect.succeed(message))(effect))
}

/**
 * The fake exchange as a service. `FakeExchange.layer(options)` provides it together with an
 * in-memory `HttpClient` answered by it.
 *
 * @since 0.1.0
 * @category tags
 */
export class FakeExchange extends Context.Tag("@account-bills/core/testing/FakeExchange")<
  FakeExchange,
  FakeExchangeService
>() {
  /** Credentials the fake accepts unless told otherwise. */
  static readonly defaultCredentials = defaultCredentials
  /** Builds the service. */
  static readonly make = make
  /** Only the service. */
  static readonly layerExchange = (options?: FakeExchangeOptions): Layer.Layer<FakeExchange> =>
    Layer.effect(FakeExchange, make(options))
  /**
   * An `HttpClient` answered in memory by the `FakeExchange` in context, `latency` away. A request
   * that waits 2 s of real time on a clock the test does not move fails, saying so.
   */
  static readonly layerHttpClient = (
    latency?: LatencyOptions
  ): Layer.Layer<HttpClient.HttpClient, never, FakeExchange> =>
    Layer.effect(
      HttpClient.HttpClient,
      Effect.map(FakeExchange, (exchange) => guarded(FakeHttpClient.make(exchange.handle, latency), latency))
    )
  /** The service and an in-memory `HttpClient` backed by it (one shared model), `options.latency` away. */
  static readonly layer = (options?: FakeExchangeOptions): Layer.Layer<FakeExchange | HttpClient.HttpClient> =>
    Layer.provideMerge(FakeExchange.layerHttpClient(options?.latency), FakeExchange.layerExchange(options))
  /** An in-memory `HttpClient` answered by the given exchange, with the same guard as `layerHttpClient`. */
  static readonly httpClient = (exchange: FakeExchangeService): HttpClient.HttpClient =>
    guarded(FakeHttpClient.make(exchange.handle))
}
