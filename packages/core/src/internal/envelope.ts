/**
 * What an answer of the exchange means, whatever the interface version: a payload, or the typed
 * failure it stands for. Pure: no request is sent here. Each version has one interpreter
 * (`envelopeV2.ts`, `envelopeV3.ts`); the pieces they share live here.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { BillsApiError, BillsDecodeError } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import { firstIssue } from "./parseIssue.js"

/** What a request is for: an operation, or the server time. */
export type CallName = BillsApiError["operation"]

/** What came back from one attempt, before it is interpreted. */
export interface RawResponse {
  readonly status: number
  /** The body as the interpreter reads it: number literals a JS number cannot hold made strings. */
  readonly text: string
  /** The body exactly as received, for what errors quote. */
  readonly received: string
  readonly retryAfter: string | undefined
}

/**
 * A successful answer's payload, the server's stamp of the request when the version sends one,
 * and the body as received (which a decode failure quotes).
 */
export interface Answer {
  readonly data: unknown
  readonly requestTime: number | undefined
  readonly received: string
}

/**
 * One interface version as the pipeline sees it: where to send, how to read an answer, and how
 * to ask for and read the server's clock. Chosen once from `BillsConfig.apiVersion`.
 */
export interface EnvelopeInterpreter {
  /** Request path of each operation, exactly as it enters the signature. */
  readonly operationPath: Readonly<Record<OperationName, string>>
  /** Path of the public, unsigned server-time endpoint. */
  readonly serverTimePath: string
  /** Path of the futures host's own public time endpoint. */
  readonly contractServerTimePath: string
  /** The answer's payload, or the failure it stands for; `now` resolves an HTTP-date `Retry-After`. */
  readonly interpret: (
    operation: CallName,
    response: RawResponse,
    now: number
  ) => Either.Either<Answer, BillsApiError | BillsDecodeError>
  /** Decodes a payload with the operation's schema; failures name the field as the wire has it. */
  readonly decode: <A, I>(
    operation: CallName,
    schema: Schema.Schema<A, I>
  ) => (answer: Answer) => Effect.Effect<A, BillsDecodeError>
  /** The server's clock, in epoch ms, from the time endpoint's payload. */
  readonly serverTime: (answer: Answer) => Effect.Effect<number, BillsDecodeError>
  /** The futures host's clock, in epoch ms, from its time endpoint's payload. */
  readonly contractServerTime: (answer: Answer) => Effect.Effect<number, BillsDecodeError>
}

const excerptLength = 200

/** The start of a body, bounded, for error values. */
export const excerpt = (text: string): string =>
  text.length > excerptLength ? `${text.slice(0, excerptLength)}…` : text

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`. */
export const retryAfterMillis = (header: string | undefined, now: number): number | undefined => {
  if (header === undefined) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * What a body that the interpreter of one version cannot read says when it is the other
 * version's answer: a v2 envelope carries its `code` as a string (`"40404"`), a v3 failure as a
 * number (`-1140`, or a bare status). The usual cause is `WEEX_API_VERSION` set for the other
 * interface than the exchange serves at that address, so the issue names it.
 */
export const otherVersionIssue = (
  text: string,
  expected: "v2" | "v3"
): { readonly path: string; readonly message: string } | undefined => {
  const value = Either.getOrUndefined(Either.try(() => JSON.parse(text) as unknown))
  if (value === null || typeof value !== "object" || !("code" in value)) return undefined
  const code = (value as { readonly code: unknown }).code
  const answered = typeof code === "string" ? "v2" : typeof code === "number" ? "v3" : undefined
  if (answered === undefined || answered === expected) return undefined
  return {
    path: "code",
    message: `the exchange answered as its ${answered} interface (code ${JSON.stringify(code)}), not ${expected}: set WEEX_API_VERSION=${answered} (or apiVersion: "${answered}")`
  }
}

/**
 * An answer of HTTP 404: the exchange has nothing at the URL asked for, whatever interface the
 * body speaks (a v3-only exchange answers a v2 path `{"code":"40404","msg":"Request URL NOT
 * FOUND"}`), so the failure names the URL rather than the body's code alone.
 */
export const notFound = (operation: CallName, response: RawResponse, url: string): BillsApiError => {
  const value = Either.getOrUndefined(Either.try(() => JSON.parse(response.text) as unknown))
  const field = (name: string): string | undefined => {
    if (value === null || typeof value !== "object" || !(name in value)) return undefined
    const found = (value as Record<string, unknown>)[name]
    return typeof found === "string" || typeof found === "number" ? String(found) : undefined
  }
  return new BillsApiError({
    operation,
    reason: "NotFound",
    code: field("code") ?? "",
    msg: field("msg") ?? excerpt(response.received),
    status: response.status,
    url
  })
}

/**
 * An answer the version cannot read: an error status still says enough to classify and retry
 * (429, 5xx); anything else is an unreadable body, at `stage` `Json` when it is not JSON at all.
 */
export const unreadable = (
  operation: CallName,
  response: RawResponse,
  retryAfter: number | undefined,
  issue: { readonly path: string; readonly message: string },
  reasonOfStatus: (status: number) => BillsApiError["reason"],
  stage: "Json" | "Envelope"
): Either.Either<never, BillsApiError | BillsDecodeError> => {
  if (response.status === 429 || response.status >= 500) {
    return Either.left(
      new BillsApiError({
        operation,
        reason: reasonOfStatus(response.status),
        code: "",
        msg: `HTTP ${response.status} without an envelope: ${excerpt(response.received)}`,
        status: response.status,
        ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
      })
    )
  }
  return Either.left(
    new BillsDecodeError({
      operation,
      status: response.status,
      stage,
      path: issue.path,
      description: issue.message,
      bodyExcerpt: excerpt(response.received)
    })
  )
}

/**
 * Decodes a payload with the operation's schema; failures name the field under `root` (the
 * envelope's `data` in v2, the body itself when `root` is empty) and quote the body as received.
 */
export const decodeData =
  <A, I>(operation: CallName, schema: Schema.Schema<A, I>, root = "data") =>
  (answer: Answer): Effect.Effect<A, BillsDecodeError> =>
    Effect.mapError(Schema.decodeUnknown(schema)(answer.data), (error) => {
      const issue = firstIssue(error)
      return new BillsDecodeError({
        operation,
        status: 200,
        stage: "Data",
        path: root === "" ? issue.path : issue.path === "" ? root : `${root}.${issue.path}`.replace(".[", "["),
        description: issue.message,
        bodyExcerpt: excerpt(answer.received)
      })
    })

/** The JSON value of a body, or why it is not JSON. */
export const parseBody = Schema.decodeEither(Schema.parseJson())

/** The server time as epoch milliseconds (a digit string is read too). */
export const ServerTimeMillis = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int))
