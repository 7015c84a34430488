/**
 * A far export over loopback, read request by request (issue 33 section 3, issue 38 section 4):
 * for each request, when the walk asked for a permit, when the limiter's rule let it go (its
 * dependency `p - 10`, that request's stamp, the 25 ms margin), when the permit was granted, when
 * the request left the client pipeline (after signing), when its headers were written to the
 * socket (undici's `sendHeaders` diagnostics channel), and when the exchange counted it. The
 * exchange runs in this process or, with `apart`, in a child process (`farServer.ts`), as the
 * judges run it.
 *
 * Each window's span (arrival of p to p + 10) is then split into the links of the chain: the
 * rule's own wait (`edge p+10 − grant p`, 1025 ms plus the stamp's spread), the timer's lateness
 * (`grant − edge`), the walk asking late (`asked − edge`), the CPU from grant to the wire and the
 * way there (`arrival − wire`, the exchange's own half-latency timer), each as p + 10's minus p's.
 *
 * `tsx --conditions=@account-bills/source bench/farTrace.ts [--apart] [--log]` prints the v2 and
 * v3 contract walks at 150 and 300 ms.
 */
import { fork } from "node:child_process"
import diagnostics from "node:diagnostics_channel"
import { fileURLToPath } from "node:url"
import {
  type BillKind,
  BillsApi,
  BillsConfig,
  BillsRateLimiter,
  operationOf,
  type PermitOutcome,
  Signer
} from "@account-bills/core"
import { FakeExchangeServer } from "@account-bills/node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as PermitRule from "../packages/core/src/internal/permitRule.js"
import { credentials } from "./client.js"
import { farHistory, walkCeiling } from "./farExchange.js"
import type { FarServerLog, FarServerOptions } from "./farServer.js"

const windowMillis = 1000
const limit = 10
/** The limiter's default margin: the ceiling counts it too. */
const marginMillis = 25

/** Wall-clock milliseconds with sub-millisecond resolution (the exchange stamps `Date.now()`). */
const now = (): number => performance.timeOrigin + performance.now()

/** One request as the client and the exchange saw it (wall-clock ms). */
export interface TracedRequest {
  /** The walk asked for a permit (booked its slot). */
  asked: number
  /** The limiter let the request go. */
  granted: number
  /** The request left the client pipeline: signed, built, about to be handed to undici. */
  sent: number
  /** Its headers were written to the socket. */
  wire: number
  /** The answer was read. */
  finished: number
  /** The server's stamp (`requestTime`, v2). */
  serverTime: number | undefined
  answered: boolean
  /** The exchange counted it. */
  arrival: number
  sign: string | undefined
  /** When the rule let it go: dependency `p - 10`'s window opened, plus window and margin. */
  edge: number
}

/** A traced export. */
export interface TraceRow {
  readonly apiVersion: "v2" | "v3"
  readonly account: BillKind
  readonly roundTripMillis: number
  readonly apart: boolean
  readonly requests: number
  readonly rejected: number
  readonly bills: number
  readonly expected: number
  readonly share: number
  readonly trace: ReadonlyArray<TracedRequest>
}

/** The current request's record, so that the HTTP client can stamp it. */
const current = FiberRef.unsafeMake<TracedRequest | undefined>(undefined)

const blank = (): TracedRequest => ({
  asked: Number.NaN,
  granted: Number.NaN,
  sent: Number.NaN,
  wire: Number.NaN,
  finished: Number.NaN,
  serverTime: undefined,
  answered: false,
  arrival: Number.NaN,
  sign: undefined,
  edge: Number.NaN
})

/** The default limiter, with each permit's ask, grant and outcome written down. */
const tracingLimiter = (trace: Array<TracedRequest>) =>
  Layer.effect(
    BillsRateLimiter,
    Effect.map(BillsRateLimiter.make(), (inner) =>
      BillsRateLimiter.of({
        withPermit: (operation, observe) => (request) =>
          Effect.suspend(() => {
            const record = blank()
            record.asked = now()
            trace.push(record)
            const observed =
              observe === undefined
                ? undefined
                : (exit: Parameters<typeof observe>[0]): PermitOutcome => {
                    const outcome = observe(exit)
                    record.finished = now()
                    record.serverTime = outcome.serverTime
                    record.answered = outcome.answered ?? outcome.serverTime !== undefined
                    return outcome
                  }
            return inner.withPermit(
              operation,
              observed
            )(
              Effect.suspend(() => {
                record.granted = now()
                return Effect.locally(request, current, record)
              })
            )
          }),
        take: inner.take
      })
    )
  )

/** Undici's client, each request stamped as it leaves the pipeline and as its headers hit the socket. */
const tracingHttpClient = () => {
  const bySign = new Map<string, TracedRequest>()
  diagnostics.subscribe("undici:client:sendHeaders", (message) => {
    const headers = String((message as { readonly headers?: unknown }).headers ?? "")
    const sign = /access-sign: ([^\r\n]+)/i.exec(headers)?.[1]
    const record = sign === undefined ? undefined : bySign.get(sign)
    if (record !== undefined) record.wire = now()
  })
  return Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.tapRequest(client, (request) =>
        Effect.map(FiberRef.get(current), (record) => {
          if (record === undefined) return
          record.sent = now()
          record.sign = request.headers["access-sign"]
          if (record.sign !== undefined) bySign.set(record.sign, record)
        })
      )
    )
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))
}

/** The exchange of a row: in this process, or in a child process of its own. */
const exchangeOf = (options: FarServerOptions, apart: boolean) =>
  apart
    ? Effect.acquireRelease(
        Effect.async<{
          readonly url: string
          readonly log: Effect.Effect<FarServerLog>
          readonly child: ReturnType<typeof fork>
        }>((resume) => {
          const child = fork(fileURLToPath(new URL("./farServer.ts", import.meta.url)), [JSON.stringify(options)], {
            execArgv: ["--import", "tsx", "--conditions=@account-bills/source"]
          })
          child.once("message", (message) => {
            const log = Effect.async<FarServerLog>((answer) => {
              child.once("message", (reply) => answer(Effect.succeed(reply as FarServerLog)))
              child.send("log")
            })
            resume(Effect.succeed({ url: (message as { readonly url: string }).url, log, child }))
          })
        }),
        (exchange) => Effect.sync(() => exchange.child.disconnect())
      )
    : Effect.map(
        FakeExchangeServer.make({
          apiVersion: options.apiVersion,
          ...farHistory(options.account, options.count, options.end, options.roundTripMillis),
          rateLimit: { limit, windowMillis },
          credentials
        }),
        (server) => ({
          url: server.url,
          log: Effect.gen(function* () {
            const operation = operationOf[options.account]
            const requests = (yield* server.exchange.requests)
              .filter((request) => request.operation === operation)
              .map(({ arrivalMillis, body, timestamp }) => ({ arrivalMillis, body, timestamp }))
            const stats = yield* server.exchange.stats
            return { requests, rateLimited: stats[operation].rateLimited } satisfies FarServerLog
          })
        })
      )

/**
 * Where the rule let each request go, replayed from the trace: permit p waits for p − 10 to
 * settle and for p − 1's grant, then until the window p − 10 opened, plus a window and the margin,
 * by the rule's state at that moment (the answers read by then).
 */
const placeEdges = (trace: ReadonlyArray<TracedRequest>): void => {
  const rule = PermitRule.make()
  const byFinish = [...trace].sort((a, b) => a.finished - b.finished)
  let recorded = 0
  trace.forEach((record, p) => {
    const q = trace[p - limit]
    if (q === undefined) {
      record.edge = record.asked
      return
    }
    const placedAt = Math.max(record.asked, q.finished, trace[p - 1]?.granted ?? record.asked)
    while (recorded < byFinish.length && (byFinish[recorded] as TracedRequest).finished <= placedAt) {
      const done = byFinish[recorded] as TracedRequest
      rule.record(
        { granted: done.granted, finished: done.finished, serverTime: done.serverTime, answered: done.answered },
        false
      )
      recorded++
    }
    const opens = rule.opens({
      granted: q.granted,
      finished: q.finished,
      serverTime: q.serverTime,
      answered: q.answered
    })
    record.edge = opens + windowMillis + marginMillis
  })
}

/** One traced export of `account` at `roundTripMillis`. */
export const traceOnce = (options: {
  readonly apiVersion: "v2" | "v3"
  readonly account: BillKind
  readonly roundTripMillis: number
  readonly count: number
  readonly apart: boolean
}): Promise<TraceRow> =>
  Effect.gen(function* () {
    const end = Date.now() - 1000
    const exchange = yield* exchangeOf({ ...options, end }, options.apart)
    const trace: Array<TracedRequest> = []
    let bills = 0
    yield* Effect.flatMap(BillsApi, (api) => {
      const stream: Stream.Stream<unknown, unknown> =
        options.account === "funding"
          ? api.streamFundingBills()
          : options.account === "spot"
            ? api.streamSpotBills()
            : api.streamContractBills()
      return Stream.runForEach(stream, () =>
        Effect.sync(() => {
          bills++
        })
      )
    }).pipe(
      Effect.provide(
        BillsApi.layer.pipe(
          Layer.provide(tracingHttpClient()),
          Layer.provide(
            Signer.layer({
              apiKey: Redacted.make(credentials.apiKey),
              secret: Redacted.make(credentials.secret),
              passphrase: Redacted.make(credentials.passphrase)
            })
          ),
          Layer.provide(tracingLimiter(trace)),
          Layer.provide(
            Layer.orDie(
              BillsConfig.layer({
                baseUrl: exchange.url,
                contractBaseUrl: exchange.url,
                apiVersion: options.apiVersion
              })
            )
          )
        )
      )
    )
    const log = yield* exchange.log
    // Each arrival to its request by order: the k-th request on the wire is the k-th counted (a
    // fixed latency keeps the order; the ties are within a millisecond).
    const arrivalsSorted = log.requests.map((request) => request.arrivalMillis)
    const onWire = [...trace].sort((a, b) => (a.wire || a.granted) - (b.wire || b.granted))
    onWire.forEach((record, i) => {
      record.arrival = arrivalsSorted[i] ?? Number.NaN
    })
    placeEdges(trace)
    const requests = log.requests.length
    const first = arrivalsSorted[0] ?? 0
    const last = arrivalsSorted[requests - 1] ?? 0
    const requestsPerSecond = (requests * 1000) / (last - first + windowMillis)
    return {
      apiVersion: options.apiVersion,
      account: options.account,
      roundTripMillis: options.roundTripMillis,
      apart: options.apart,
      requests,
      rejected: log.rateLimited,
      bills,
      expected: options.count,
      share: requestsPerSecond / walkCeiling(requests, options.roundTripMillis, marginMillis),
      trace
    } satisfies TraceRow
  }).pipe(Effect.scoped, Effect.runPromise)

const mean = (values: ReadonlyArray<number>): number =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length

/**
 * How the spans of the windows (arrival p to p + 10) split, on average over every p: the rule's
 * own wait from grant p to edge p + 10, the timers' lateness at p + 10's edge, the walk asking
 * after its edge, and the changes from p to p + 10 of grant-to-wire and wire-to-arrival.
 */
export const spanSplit = (row: TraceRow) => {
  const trace = row.trace
  const pairs: Array<{
    span: number
    rule: number
    timer: number
    walkLate: number
    queued: number
    toWire: number
    there: number
  }> = []
  for (let p = 0; p + limit < trace.length; p++) {
    const a = trace[p] as TracedRequest
    const b = trace[p + limit] as TracedRequest
    const ready = Math.max(b.edge, b.asked, (trace[p + limit - 1] as TracedRequest).granted)
    pairs.push({
      span: b.arrival - a.arrival,
      rule: b.edge - a.granted,
      timer: b.granted - ready,
      walkLate: Math.max(0, b.asked - b.edge),
      queued: ready - Math.max(b.edge, b.asked),
      toWire: b.wire - b.granted - (a.wire - a.granted),
      there: b.arrival - b.wire - (a.arrival - a.wire)
    })
  }
  return {
    pairs: pairs.length,
    span: mean(pairs.map((pair) => pair.span)),
    rule: mean(pairs.map((pair) => pair.rule)),
    timer: mean(pairs.map((pair) => pair.timer)),
    walkLate: mean(pairs.map((pair) => pair.walkLate)),
    queued: mean(pairs.map((pair) => pair.queued)),
    toWire: mean(pairs.map((pair) => pair.toWire)),
    there: mean(pairs.map((pair) => pair.there)),
    /** Per request: mean grant → wire and wire → arrival. */
    grantToWire: mean(trace.map((record) => record.wire - record.granted)),
    wireToArrival: mean(trace.map((record) => record.arrival - record.wire)),
    timerLate: mean(trace.slice(limit).map((record) => record.granted - Math.max(record.edge, record.asked))),
    askedLate: trace.slice(limit).filter((record) => record.asked > record.edge + 1).length
  }
}

/** Request by request, times relative to the first arrival. */
export const traceLog = (row: TraceRow): string => {
  const zero = row.trace[0]?.arrival ?? 0
  const f = (value: number) => (Number.isNaN(value) ? "-" : (value - zero).toFixed(1))
  return row.trace
    .map(
      (record, p) =>
        `${p + 1} asked ${f(record.asked)} edge ${f(record.edge)} granted ${f(record.granted)} sent ${f(record.sent)} wire ${f(record.wire)} arrival ${f(record.arrival)} finished ${f(record.finished)}${p >= limit ? ` span ${(record.arrival - (row.trace[p - limit] as TracedRequest).arrival).toFixed(0)}` : ""}`
    )
    .join("\n")
}

if (process.argv[1]?.endsWith("farTrace.ts")) {
  const apart = process.argv.includes("--apart")
  const only = (flag: string) => process.argv[process.argv.indexOf(flag) + 1]
  const versions = process.argv.includes("--version") ? [only("--version") as "v2" | "v3"] : (["v2", "v3"] as const)
  const roundTrips = process.argv.includes("--rtt") ? [Number(only("--rtt"))] : [150, 300]
  for (const apiVersion of versions) {
    for (const roundTripMillis of roundTrips) {
      const row = await traceOnce({ apiVersion, account: "contract", roundTripMillis, count: 10_000, apart })
      const split = spanSplit(row)
      console.log(
        `${apiVersion} contract ${roundTripMillis} ms ${apart ? "apart" : "in-process"}: ${row.requests} requests, share ${row.share.toFixed(3)}, ${row.rejected} x 429, ${row.bills}/${row.expected} bills; span ${split.span.toFixed(1)} = rule ${split.rule.toFixed(1)} + timer ${split.timer.toFixed(1)} + walk late ${split.walkLate.toFixed(1)} + queued ${split.queued.toFixed(1)} + to wire ${split.toWire.toFixed(1)} + there ${split.there.toFixed(1)}; per request grant->wire ${split.grantToWire.toFixed(2)}, wire->arrival ${split.wireToArrival.toFixed(1)}, timer late ${split.timerLate.toFixed(2)}, asked late ${split.askedLate}`
      )
      if (process.argv.includes("--log")) console.log(traceLog(row))
    }
  }
}
