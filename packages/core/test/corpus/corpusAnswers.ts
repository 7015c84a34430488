/**
 * How the loopback exchange answers around one bills sample: the sample's bytes to the first
 * request whose window holds every bill of it, and after that (or to a window that holds none)
 * the operation's empty page in the same version's shape. The empty pages and the time answers
 * here are written for the test, not taken from a source: they are the least an exchange that
 * printed the sample could answer next.
 */
import * as Either from "effect/Either"
import type { Received, Reply } from "./loopbackExchange.js"

/** An operation with bills. */
export type BillsOperation = "fundingBills" | "spotBills" | "contractBills"

/** The path of each operation and of the time endpoints, per version, as the client asks them. */
export const billsPath: Readonly<Record<"v2" | "v3", Readonly<Record<BillsOperation, string>>>> = {
  v2: {
    fundingBills: "/api/v2/account/fundingBills",
    spotBills: "/api/v2/account/bills",
    contractBills: "/capi/v2/account/bills"
  },
  v3: {
    fundingBills: "/api/v3/account/fundingBills",
    spotBills: "/api/v3/account/bills",
    contractBills: "/capi/v3/account/income"
  }
}

/** The time endpoint of each host and version. */
export const timePath = {
  spot: { v2: "/api/v2/public/time", v3: "/api/v3/time" },
  contract: { v2: "/capi/v2/market/time", v3: "/capi/v3/market/time" }
} as const

/** A time answer in each shape seen in the corpus, at `now`. */
const timeBody = (path: string, now: number): string | undefined => {
  switch (path) {
    case timePath.spot.v2:
      return JSON.stringify({ code: "00000", msg: "success", requestTime: now, data: now })
    case timePath.spot.v3:
    case timePath.contract.v3:
      return JSON.stringify({ serverTime: now })
    case timePath.contract.v2:
      return JSON.stringify({ epoch: (now / 1000).toFixed(3), iso: new Date(now).toISOString(), timestamp: now })
  }
  return undefined
}

const notFound: Reply = { status: 404, body: JSON.stringify({ code: "40404", msg: "Request URL NOT FOUND" }) }

/**
 * The time endpoints: the given bodies where a test gives one, else an answer at `now`.
 */
export const answerTime =
  (now: number, given: Readonly<Record<string, string>> = {}) =>
  (request: Received): Reply | undefined => {
    const path = request.path.split("?")[0] ?? ""
    const body = given[path] ?? timeBody(path, now)
    return body === undefined ? undefined : { status: 200, body }
  }

const numberOf = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : undefined

/** A request body's fields; a body that is not a JSON object has none. */
const bodyFields = (text: string): Record<string, unknown> => {
  const parsed = Either.getOrUndefined(Either.try(() => JSON.parse(text) as unknown))
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {}
}

/** The window a request body asks for, its bounds taken as inclusive (absent: open). */
const windowOf = (operation: BillsOperation, body: Record<string, unknown>) =>
  operation === "spotBills"
    ? { from: numberOf(body.after), to: numberOf(body.before) }
    : { from: numberOf(body.startTime), to: numberOf(body.endTime) }

/** The empty page of an operation in a version's shape. */
const emptyPage = (
  operation: BillsOperation,
  version: "v2" | "v3",
  now: number,
  request: Record<string, unknown>,
  total: number
): string => {
  const page = numberOf(request.pageIndex) ?? 1
  const pageSize = numberOf(request.pageSize) ?? 10
  if (operation === "contractBills") return JSON.stringify({ hasNextPage: false, items: [] })
  if (operation === "spotBills") {
    return version === "v3" ? "[]" : JSON.stringify({ code: "00000", msg: "success", requestTime: now, data: [] })
  }
  if (version === "v3") {
    return JSON.stringify({ total, pageSize, pages: Math.ceil(total / pageSize), page, hasNextPage: false, items: [] })
  }
  return JSON.stringify({
    code: "00000",
    msg: "success",
    requestTime: now,
    data: { total, pageSize, page, hasNextPage: false, items: [] }
  })
}

/**
 * Answers a bills operation with `page` (the sample's bytes) once, as described above. A window
 * that holds some of the sample's bills but not all is answered 500 with a body that says so:
 * the sample cannot be cut without re-writing it, so such a walk is a fault of the test to see.
 */
export const answerBills = (options: {
  readonly operation: BillsOperation
  readonly version: "v2" | "v3"
  readonly page: string
  readonly times: ReadonlyArray<number>
  readonly total: number
  readonly now: number
  readonly time?: Readonly<Record<string, string>>
}) => {
  let served = false
  const time = answerTime(options.now, options.time)
  return (request: Received): Reply => {
    const timeReply = time(request)
    if (timeReply !== undefined) return timeReply
    if (request.path !== billsPath[options.version][options.operation]) return notFound
    const body = bodyFields(request.body)
    const { from, to } = windowOf(options.operation, body)
    const inside = options.times.filter((t) => (from === undefined || t >= from) && (to === undefined || t <= to))
    const later = options.operation === "fundingBills" && (numberOf(body.pageIndex) ?? 1) > 1
    if (served || later || inside.length === 0) {
      return { status: 200, body: emptyPage(options.operation, options.version, options.now, body, options.total) }
    }
    if (inside.length < options.times.length) {
      return {
        status: 500,
        body: `corpus server: the window ${from}..${to} holds ${inside.length} of the sample's ${options.times.length} bills`
      }
    }
    served = true
    return { status: 200, body: options.page }
  }
}
