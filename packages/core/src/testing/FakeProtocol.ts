/**
 * What goes in and out of the fake exchange's platform-free handler, and the answers it can give.
 *
 * Codes the fake exchange emits (HTTP status / envelope `code`):
 *
 * | HTTP | code    | msg (prefix)                          | when |
 * |------|---------|---------------------------------------|------|
 * | 200  | `00000` | `success`                             | success (and `GET /api/v2/public/time`) |
 * | 400  | `40001` | `ACCESS_KEY is required`              | no `ACCESS-KEY` header |
 * | 400  | `40002` | `ACCESS_SIGN is required`             | no `ACCESS-SIGN` header |
 * | 400  | `40003` | `ACCESS_TIMESTAMP and ACCESS_PASSPHRASE are required` | either header missing |
 * | 400  | `40005` | `Invalid ACCESS_TIMESTAMP`            | timestamp not 1–15 digits |
 * | 401  | `40006` | `Invalid ACCESS_KEY` / `Invalid ACCESS_PASSPHRASE` | unknown key, wrong passphrase |
 * | 401  | `40008` | `Request timestamp expired`           | timestamp more than `maxSkewMillis` (30 s) from the fake's clock |
 * | 401  | `40009` | `sign signature error`                | HMAC over timestamp+METHOD+path(+?query)+body text differs |
 * | 400  | `40017` | `Parameter verification failed: ...`  | body not a JSON object, Content-Type not JSON, pageSize/limit not an integer 1..100, pageIndex not an integer >= 1, coinId not a JSON integer, bizType not in the operation's list, time bound neither 1–15 digits nor a non-negative integer |
 * | 400  | `40704` | `Only the last three months ...`      | start bound older than `lookbackMillis` (only when that option is set) |
 * | 400  | `40704` | `Time range cannot exceed ...`        | window wider than `maxWindowMillis`, a missing start counting as unbounded (only when that option is set) |
 * | 400  | `40707` | `Start time is greater than end time` | start bound > end bound |
 * | 429  | `429`   | `Too Many Requests`                   | sliding-window rate limit exceeded (and injected 429) |
 * | 404  | `40404` | `Request URL NOT FOUND`               | unknown path, as `{code, msg}` alone in both versions (the real exchange's gateway answers a v2 path so once it serves v3 only) |
 * | 405  | `40405` | `Method Not Allowed`                  | GET on an operation, POST on the time path (fake only) |
 * | 5xx  | `500`/`502`/`503` | reason phrase               | injected `Status` fault |
 * | any  | any     | any                                   | injected `Code` fault (e.g. `40200` maintenance with HTTP 200) |
 *
 * The futures host answers as its docs' samples show (issue 49): on v2 `POST /capi/v2/account/bills`
 * succeeds with the page bare, `{"hasNextPage": …, "items": [...]}`, no code, msg or stamp, ids
 * and `ctime` as JSON numbers; `GET /capi/v2/market/time` answers `{"epoch", "iso", "timestamp"}`
 * and `GET /capi/v3/market/time` `{"serverTime"}`. Its failures take the version's failure form
 * above. `FakeExchangeOptions.contractWire` serves the other forms seen in public material.
 *
 * Non-JSON answers come only from faults: `Html` (an HTML page), `Truncated` (the real answer cut
 * in half), `Reset` (connection dropped) and `Hang` (no answer ever).
 *
 * With `apiVersion: "v3"` the fake serves `/api/v3/account/fundingBills`, `/api/v3/account/bills`
 * and `GET /api/v3/time` (and 404s the v2 paths, with the v2-shaped body above): success is the payload alone (the funding page
 * with `pages`, the spot array, `{"serverTime": ms}`), with no envelope and no `requestTime`;
 * each rejection above becomes `{"code": <negative int>, "msg": ...}` from {@link rejectionsV3}
 * with the same HTTP status; fault and unknown codes are sent as numbers (`429`, `500`, `40200`).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type { OperationName } from "../Operation.js"

/**
 * A received request, decoded just enough to be platform-free.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeRequest {
  readonly method: string
  /** Path without the query, e.g. `/api/v2/account/bills`. */
  readonly path: string
  /** Query string without the leading `?`; empty when there is none. */
  readonly query: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The exact body text received. */
  readonly body: string
}

/**
 * A request as an HTTP server hands it over (Node's `IncomingMessage` is one), with its body
 * read, as the fake's handler takes it: the target split into path and query, repeated headers
 * joined. For a server of your own in front of the fake exchange.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fakeRequestOf = (
  req: {
    readonly method?: string | undefined
    readonly url?: string | undefined
    readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  },
  body: string
): FakeRequest => {
  const target = req.url ?? "/"
  const mark = target.indexOf("?")
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  return {
    method: req.method ?? "GET",
    path: mark === -1 ? target : target.slice(0, mark),
    query: mark === -1 ? "" : target.slice(mark + 1),
    headers,
    body
  }
}

/**
 * What the handler answers. `Truncated` carries the already-cut body and is sent like a
 * `Response`; `Reset` drops the connection; `Hang` never answers.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeResponse = Data.TaggedEnum<{
  Response: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string }
  Truncated: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string }
  Reset: Record<never, never>
  Hang: Record<never, never>
}>

/**
 * Constructors and matchers of {@link FakeResponse}.
 *
 * @since 0.1.0
 * @category models
 */
export const FakeResponse = Data.taggedEnum<FakeResponse>()

/**
 * A failure the fake exchange can be told to produce instead of (or on top of) its real answer.
 *
 * @since 0.1.0
 * @category models
 */
export type FakeFault = Data.TaggedEnum<{
  /** The given HTTP status with a JSON envelope `{code: String(status), msg: reason}` (429: the rate-limit body). */
  Status: { readonly status: number }
  /** An envelope with any code, e.g. `40200` maintenance with HTTP 200. */
  Code: { readonly status: number; readonly code: string; readonly msg: string }
  /** An HTML error page with this status (a gateway in front of the API). */
  Html: { readonly status: number }
  /** The real answer, its body cut in the middle. */
  Truncated: Record<never, never>
  /** The connection is dropped: a transport failure. */
  Reset: Record<never, never>
  /** No answer, ever; only the client's timeout or interruption ends the request. */
  Hang: Record<never, never>
}>

/**
 * Constructors and matchers of {@link FakeFault}.
 *
 * @since 0.1.0
 * @category models
 */
export const FakeFault = Data.taggedEnum<FakeFault>()

/**
 * Fault `fault` on the `nth` request (1-based) counted over both operations, or over one
 * operation when `operation` is set. Public-time requests are never counted nor faulted.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedFault {
  readonly nth: number
  readonly operation?: OperationName | undefined
  readonly fault: FakeFault
}

/**
 * Faults at a seeded random rate (0..1), drawn from `mix` by weight.
 *
 * @since 0.1.0
 * @category models
 */
export interface RandomFaults {
  readonly rate: number
  /** Default 1. */
  readonly seed?: number | undefined
  /** Default: equal weights of Status 500, 502, 503, 429, Reset, Html 502, Truncated (no Hang). */
  readonly mix?: ReadonlyArray<{ readonly fault: FakeFault; readonly weight: number }> | undefined
}

/**
 * The mix of random faults when none is given. `Hang` is left out because it needs a client timeout.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultFaultMix: ReadonlyArray<{ readonly fault: FakeFault; readonly weight: number }> = [
  { fault: FakeFault.Status({ status: 500 }), weight: 1 },
  { fault: FakeFault.Status({ status: 502 }), weight: 1 },
  { fault: FakeFault.Status({ status: 503 }), weight: 1 },
  { fault: FakeFault.Status({ status: 429 }), weight: 1 },
  { fault: FakeFault.Reset(), weight: 1 },
  { fault: FakeFault.Html({ status: 502 }), weight: 1 },
  { fault: FakeFault.Truncated(), weight: 1 }
]

/**
 * An envelope failure: its HTTP status, code and message.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rejection {
  readonly status: number
  readonly code: string
  readonly msg: string
}

/**
 * Every rejection the fake emits by itself (faults aside), keyed by a name that says why.
 *
 * @since 0.1.0
 * @category constants
 */
export const rejections = {
  missingKey: { status: 400, code: "40001", msg: "ACCESS_KEY is required" },
  missingSign: { status: 400, code: "40002", msg: "ACCESS_SIGN is required" },
  missingTimestampOrPassphrase: {
    status: 400,
    code: "40003",
    msg: "ACCESS_TIMESTAMP and ACCESS_PASSPHRASE are required"
  },
  invalidTimestamp: { status: 400, code: "40005", msg: "Invalid ACCESS_TIMESTAMP" },
  invalidKey: { status: 401, code: "40006", msg: "Invalid ACCESS_KEY" },
  invalidPassphrase: { status: 401, code: "40006", msg: "Invalid ACCESS_PASSPHRASE" },
  timestampExpired: { status: 401, code: "40008", msg: "Request timestamp expired" },
  signature: { status: 401, code: "40009", msg: "sign signature error" },
  parameter: { status: 400, code: "40017", msg: "Parameter verification failed" },
  tooOld: { status: 400, code: "40704", msg: "Only the last three months of data can be queried" },
  tooWide: { status: 400, code: "40704", msg: "Time range cannot exceed the allowed number of days" },
  startAfterEnd: { status: 400, code: "40707", msg: "Start time is greater than end time" },
  rateLimited: { status: 429, code: "429", msg: "Too Many Requests" },
  notFound: { status: 404, code: "40404", msg: "Request URL NOT FOUND" },
  methodNotAllowed: { status: 405, code: "40405", msg: "Method Not Allowed" }
} as const satisfies Record<string, Rejection>

/**
 * The v3 form of each rejection in {@link rejections}, keyed alike: codes and messages as the
 * v3 interface documents them. The v3 answer to rate limiting, only known to be HTTP 429, keeps
 * the status as its code.
 *
 * @since 0.1.0
 * @category constants
 */
export const rejectionsV3 = {
  missingKey: { status: 400, code: "-1040", msg: "ACCESS_KEY header is required" },
  missingSign: { status: 400, code: "-1041", msg: "ACCESS_SIGN header is required" },
  missingTimestampOrPassphrase: { status: 400, code: "-1042", msg: "ACCESS_TIMESTAMP header is required" },
  invalidTimestamp: { status: 400, code: "-1043", msg: "Invalid ACCESS_TIMESTAMP" },
  invalidKey: { status: 401, code: "-1044", msg: "Invalid ACCESS_KEY" },
  invalidPassphrase: { status: 401, code: "-1049", msg: "API key or passphrase incorrect" },
  timestampExpired: { status: 401, code: "-1046", msg: "Request timestamp expired" },
  signature: { status: 401, code: "-1047", msg: "API authentication failed" },
  parameter: { status: 400, code: "-1140", msg: "Parameter validation failed" },
  tooOld: {
    status: 400,
    code: "-1170",
    msg: "startTime must be within the last 90 days. Time range cannot exceed 90 days"
  },
  // v3 documents one code and one text for both rules, so the client cannot tell them apart by it.
  tooWide: {
    status: 400,
    code: "-1170",
    msg: "startTime must be within the last 90 days. Time range cannot exceed 90 days"
  },
  startAfterEnd: { status: 400, code: "-1171", msg: "startTime cannot be greater than endTime" },
  rateLimited: { status: 429, code: "429", msg: "Too Many Requests" },
  // Not a v3 answer: the gateway's, the same in both versions (see the table above).
  notFound: { status: 404, code: "40404", msg: "Request URL NOT FOUND" },
  methodNotAllowed: { status: 405, code: "-1150", msg: "Request method not supported" }
} as const satisfies { readonly [K in keyof typeof rejections]: Rejection }

/**
 * The envelope text, fields in the order the real server writes them.
 *
 * @since 0.1.0
 * @category utils
 */
export const envelope = (code: string, msg: string, requestTime: number, data: unknown): string =>
  JSON.stringify({ code, msg, requestTime, data })

const jsonHeaders: Readonly<Record<string, string>> = { "content-type": "application/json" }

/**
 * A JSON envelope response.
 *
 * @since 0.1.0
 * @category utils
 */
export const jsonResponse = (status: number, body: string): FakeResponse =>
  FakeResponse.Response({ status, headers: jsonHeaders, body })

/**
 * The response of a rejection.
 *
 * @since 0.1.0
 * @category utils
 */
export const rejectionResponse = (rejection: Rejection, requestTime: number, detail?: string): FakeResponse =>
  jsonResponse(
    rejection.status,
    envelope(rejection.code, detail === undefined ? rejection.msg : `${rejection.msg}: ${detail}`, requestTime, null)
  )

const reasonPhrases: Readonly<Record<number, string>> = {
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
}

/**
 * The standard phrase of an HTTP status, for fault bodies.
 *
 * @since 0.1.0
 * @category utils
 */
export const reasonPhrase = (status: number): string => reasonPhrases[status] ?? "Error"

/**
 * An HTML error page like the one a gateway in front of the API serves.
 *
 * @since 0.1.0
 * @category utils
 */
export const htmlPage = (status: number): string =>
  `<html>\r\n<head><title>${status} ${reasonPhrase(status)}</title></head>\r\n<body>\r\n<center><h1>${status} ${reasonPhrase(status)}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`
