/**
 * One call to the exchange: rate-limit permit, signature and send per attempt, then the
 * envelope read whatever the status, and retries of what is transient.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { BillsConfig } from "../BillsConfig.js"
import { BillsRateLimiter } from "../BillsRateLimiter.js"
import { BillsApiError, BillsDecodeError, type BillsError, BillsTransportError, reasonOf } from "../Errors.js"
import { type OperationName, operationPath, successCode } from "../Operation.js"
import { Signer } from "../Signer.js"
import { retryTransient } from "./retry.js"

/** What came back from one attempt, before it is interpreted. */
interface RawResponse {
  readonly status: number
  readonly text: string
  readonly retryAfter: string | undefined
}

const Envelope = Schema.Struct({
  code: Schema.String,
  msg: Schema.optionalWith(Schema.String, { default: () => "" }),
  requestTime: Schema.optional(Schema.Number),
  data: Schema.optional(Schema.Unknown)
})

const EnvelopeFromText = Schema.parseJson(Envelope)
const decodeEnvelope = Schema.decodeEither(EnvelopeFromText)

const excerptLength = 200
const excerpt = (text: string): string => (text.length > excerptLength ? `${text.slice(0, excerptLength)}…` : text)

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`. */
const retryAfterMillis = (header: string | undefined, now: number): number | undefined => {
  if (header === undefined) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Renders the first issue of a parse error as a path like `items[3].deltaAmount`. */
export const firstIssue = (error: ParseResult.ParseError): { readonly path: string; readonly message: string } => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (issue === undefined) return { path: "", message: error.message }
  const path = issue.path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("")
  return { path, message: issue.message }
}

/** Turns a response into the envelope's data, or the typed failure it stands for. */
const interpret = (
  operation: OperationName,
  response: RawResponse,
  now: number
): Either.Either<unknown, BillsApiError | BillsDecodeError> => {
  const envelope = decodeEnvelope(response.text)
  const retryAfter = retryAfterMillis(response.retryAfter, now)
  if (Either.isLeft(envelope)) {
    // No envelope: an error status still says enough to classify and retry.
    if (response.status === 429 || response.status >= 500) {
      return Either.left(
        new BillsApiError({
          operation,
          reason: reasonOf("", response.status),
          code: "",
          msg: `HTTP ${response.status} without an envelope: ${excerpt(response.text)}`,
          status: response.status,
          ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
        })
      )
    }
    const issue = firstIssue(envelope.left)
    return Either.left(
      new BillsDecodeError({
        operation,
        status: response.status,
        stage: "Envelope",
        path: issue.path,
        description: issue.message,
        bodyExcerpt: excerpt(response.text)
      })
    )
  }
  const { code, data, msg, requestTime } = envelope.right
  if (code === successCode && response.status >= 200 && response.status < 300) return Either.right(data)
  return Either.left(
    new BillsApiError({
      operation,
      reason: reasonOf(code, response.status),
      code,
      msg,
      status: response.status,
      ...(requestTime === undefined ? {} : { requestTime }),
      ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
    })
  )
}

/** Decodes the envelope's data with the operation's schema; failures name the field. */
export const decodeData =
  <A, I>(operation: OperationName, schema: Schema.Schema<A, I>) =>
  (data: unknown): Effect.Effect<A, BillsDecodeError> =>
    Effect.mapError(Schema.decodeUnknown(schema)(data), (error) => {
      const issue = firstIssue(error)
      return new BillsDecodeError({
        operation,
        status: 200,
        stage: "Data",
        path: issue.path === "" ? "data" : `data.${issue.path}`.replace(".[", "["),
        description: issue.message,
        bodyExcerpt: excerpt(JSON.stringify(data) ?? "")
      })
    })

/**
 * Builds the function that performs one operation call with the layer's services.
 */
export const makeExchangeRequest = Effect.gen(function* () {
  const config = yield* BillsConfig
  const limiter = yield* BillsRateLimiter
  const signer = yield* Signer
  const client = yield* HttpClient.HttpClient

  const attempt = (operation: OperationName, body: string): Effect.Effect<unknown, BillsError> =>
    Effect.gen(function* () {
      yield* limiter.take(operation)
      const path = operationPath[operation]
      const headers = yield* signer.headers({ method: "POST", path, query: "", body })
      const request = HttpClientRequest.post(config.baseUrl + path).pipe(
        HttpClientRequest.setHeaders({ ...headers, locale: config.locale }),
        HttpClientRequest.bodyText(body, "application/json")
      )
      const response = yield* client.execute(request).pipe(
        Effect.flatMap((response) =>
          Effect.map(response.text, (text) => ({
            status: response.status,
            text,
            retryAfter: response.headers["retry-after"]
          }))
        ),
        Effect.timeoutFail({
          duration: config.requestTimeout,
          onTimeout: () =>
            new BillsTransportError({
              operation,
              reason: "Timeout",
              description: `no complete response within ${Duration.format(config.requestTimeout)}`
            })
        }),
        Effect.catchTags({
          RequestError: (error) =>
            Effect.fail(new BillsTransportError({ operation, reason: "Transport", description: error.message })),
          ResponseError: (error) =>
            Effect.fail(new BillsTransportError({ operation, reason: "Transport", description: error.message }))
        })
      )
      const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      return yield* interpret(operation, response, now)
    })

  return (operation: OperationName, body: string): Effect.Effect<unknown, BillsError> =>
    retryTransient(attempt(operation, body), config)
})
