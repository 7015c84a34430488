/**
 * Every failure a user of the client can meet, as `Schema.TaggedError` classes that can be
 * caught with `Effect.catchTag`. None of them holds a credential: they are built from request
 * parameters, envelope fields and bounded excerpts of response bodies only.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const Operation = Schema.Literal("fundingBills", "spotBills", "contractBills", "serverTime", "contractServerTime")

/**
 * Parameters that break the interface's contract. Raised before anything is sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidParams extends Schema.TaggedError<InvalidParams>("@account-bills/core/InvalidParams")(
  "InvalidParams",
  {
    operation: Operation,
    /** Dotted path of the offending field, e.g. `pageSize`; empty for a rule over several fields. */
    field: Schema.String,
    /** The rule that was broken, in words. */
    rule: Schema.String
  }
) {
  override get message(): string {
    return `${this.operation}: invalid parameter${this.field === "" ? "" : ` "${this.field}"`}: ${this.rule}`
  }
}

/**
 * Why the exchange refused a request, derived from its code and the HTTP status.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BillsApiErrorReason = Schema.Literal(
  "Authentication",
  "Permission",
  "TimestampExpired",
  "RateLimited",
  "InvalidParameter",
  "HistoryLimit",
  "Maintenance",
  "ServerError",
  "NotFound",
  "Unknown"
)

/**
 * Why the exchange refused a request: a value of the `BillsApiErrorReason` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type BillsApiErrorReason = typeof BillsApiErrorReason.Type

/**
 * The exchange answered with a failure: a v2 envelope whose code is not `"00000"`, a v3
 * `{code, msg}` body, or an error status without a readable body.
 *
 * @since 0.1.0
 * @category errors
 */
export class BillsApiError extends Schema.TaggedError<BillsApiError>("@account-bills/core/BillsApiError")(
  "BillsApiError",
  {
    operation: Operation,
    reason: BillsApiErrorReason,
    /** The exchange's code (v3's negative integers as text); empty when the body carried none. */
    code: Schema.String,
    /** The envelope's msg (or the HTTP status text when there was no envelope). */
    msg: Schema.String,
    /** The server's stamp of the request; v2 envelopes carry it, v3 answers never do. */
    requestTime: Schema.optional(Schema.Number),
    status: Schema.Number,
    /** Milliseconds to wait before trying again, from a `Retry-After` header. */
    retryAfterMillis: Schema.optional(Schema.Number),
    /**
     * The URL asked for, when the exchange has nothing there (`NotFound`, HTTP 404): then the
     * interface version or the base URL is wrong, and the message says so.
     */
    url: Schema.optional(Schema.String)
  }
) {
  override get message(): string {
    const code = this.code === "" ? "" : ` code ${this.code}`
    if (this.reason === "NotFound" && this.url !== undefined && URL.canParse(this.url)) {
      const url = new URL(this.url)
      return `${this.operation}: the exchange has no ${url.pathname} at ${url.origin} (HTTP ${this.status},${code}: ${this.msg}): the likely cause is WEEX_API_VERSION (apiVersion) naming another interface version than the exchange serves there (v2 or v3), or WEEX_BASE_URL (baseUrl) pointing elsewhere`
    }
    return `${this.operation}: the exchange refused the request (${this.reason},${code} HTTP ${this.status}): ${this.msg}`
  }
}

/**
 * The request did not complete: connection failure, reset, or no answer within the timeout.
 *
 * @since 0.1.0
 * @category errors
 */
export class BillsTransportError extends Schema.TaggedError<BillsTransportError>(
  "@account-bills/core/BillsTransportError"
)("BillsTransportError", {
  operation: Operation,
  reason: Schema.Literal("Timeout", "Transport"),
  description: Schema.String
}) {
  /**
   * What happened and what to do, in one wording wherever it is shown (`bills`, the fleet's
   * status and log): the HTTP client's own `Transport error (POST …)` names neither.
   */
  override get message(): string {
    if (this.reason === "Timeout") return `${this.operation}: no answer from the exchange in time (${this.description})`
    const url = /\((?:GET|POST) ([^)\s]+)\)/.exec(this.description)?.[1]
    const origin = url === undefined || !URL.canParse(url) ? "" : ` at ${new URL(url).origin}`
    return `${this.operation}: could not connect to the exchange${origin}: the connection was refused or dropped; check ${this.operation === "contractBills" ? "WEEX_CONTRACT_BASE_URL" : "WEEX_BASE_URL"} and the network`
  }
}

/**
 * The response could not be read: not JSON, or not the shape the interface promises.
 *
 * @since 0.1.0
 * @category errors
 */
export class BillsDecodeError extends Schema.TaggedError<BillsDecodeError>("@account-bills/core/BillsDecodeError")(
  "BillsDecodeError",
  {
    operation: Operation,
    status: Schema.Number,
    /**
     * `Json` when the body is not JSON at all (a gateway's page, a body cut short), `Envelope`
     * when it is JSON but not the interface's answer, `Data` when a record or page is malformed.
     * Only `Json` is worth another attempt: a well-formed answer comes again the same.
     */
    stage: Schema.Literal("Json", "Envelope", "Data"),
    /** Path of the offending field, e.g. `data.items[3].deltaAmount`. */
    path: Schema.String,
    description: Schema.String,
    /** The start of the body as received (before any rewriting), at most 200 characters. */
    bodyExcerpt: Schema.String
  }
) {
  override get message(): string {
    const at = this.path === "" ? "" : ` at ${this.path}`
    return `${this.operation}: unreadable response (HTTP ${this.status})${at}: ${this.description}; body starts ${JSON.stringify(this.bodyExcerpt)}`
  }
}

/**
 * A stream cannot prove it saw every bill, e.g. more bills share one millisecond than one page
 * holds and no filter splits them. The stream fails rather than end with a gap.
 *
 * @since 0.1.0
 * @category errors
 */
export class BillsIncomplete extends Schema.TaggedError<BillsIncomplete>("@account-bills/core/BillsIncomplete")(
  "BillsIncomplete",
  {
    operation: Operation,
    /** The millisecond (epoch ms) that could not be read completely, when one is to blame. */
    millisecond: Schema.optional(Schema.Number),
    description: Schema.String
  }
) {
  override get message(): string {
    const at =
      this.millisecond === undefined ? "" : ` at ${new Date(this.millisecond).toISOString()} (${this.millisecond})`
    return `${this.operation}: cannot read every bill${at}: ${this.description}`
  }
}

/**
 * Any failure of a call or a stream.
 *
 * @since 0.1.0
 * @category models
 */
export type BillsError = InvalidParams | BillsApiError | BillsTransportError | BillsDecodeError | BillsIncomplete
