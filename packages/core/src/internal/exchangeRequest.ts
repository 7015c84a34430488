/**
 * One call to the exchange: rate-limit permit, signature and send per attempt, then the
 * envelope read whatever the status, and retries of what is transient.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { BillsConfig } from "../BillsConfig.js"
import * as BillsMetrics from "../BillsMetrics.js"
import { BillsRateLimiter, type PermitOutcome } from "../BillsRateLimiter.js"
import { BillsApiError, BillsDecodeError, type BillsError, BillsTransportError } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import { reasonOf } from "./errorReason.js"
import { operationPath, serverTimePath, successCode } from "./protocol.js"
import { Signer } from "../Signer.js"
import { type ClockRepair, retryTransient } from "./retry.js"

/** What a request is for: an operation, or the server time. */
type CallName = BillsApiError["operation"]

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

/** A successful envelope's data, and the server's stamp of the request. */
interface Answer {
  readonly data: unknown
  readonly requestTime: number | undefined
}

/** What the limiter learns from an attempt: where the server placed it, and whether it refused it. */
const permitOutcome = (exit: Exit.Exit<unknown, unknown>): PermitOutcome => {
  if (Exit.isSuccess(exit)) {
    const answer = exit.value as Answer
    return { serverTime: answer.requestTime, rateLimited: false, answered: true }
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && failure.value instanceof BillsApiError) {
    return {
      serverTime: failure.value.requestTime,
      rateLimited: failure.value.reason === "RateLimited",
      answered: true
    }
  }
  // A body that is not an envelope was read too; a timeout or a broken connection was not.
  const answered = Option.isSome(failure) && failure.value instanceof BillsDecodeError
  return { serverTime: undefined, rateLimited: false, answered }
}

/** Turns a response into the envelope's data, or the typed failure it stands for. */
const interpret = (
  operation: CallName,
  response: RawResponse,
  now: number
): Either.Either<Answer, BillsApiError | BillsDecodeError> => {
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
  if (code === successCode && response.status >= 200 && response.status < 300)
    return Either.right({ data, requestTime })
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
  <A, I>(operation: CallName, schema: Schema.Schema<A, I>) =>
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

/** The server time endpoint's data: epoch milliseconds (a digit string is read too). */
const ServerTime = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int))

/**
 * What the client's operations are built from.
 */
export interface ExchangeRequest {
  /** One operation call: attempts, each with a permit and a fresh signature, until one settles. */
  readonly request: (operation: OperationName, body: string) => Effect.Effect<unknown, BillsError>
  /** Measures the exchange's clock, sets the signer's offset to it, and returns the offset. */
  readonly syncClock: Effect.Effect<number, BillsError>
}

/**
 * Builds the calls with the layer's services.
 */
export const makeExchangeRequest: Effect.Effect<
  ExchangeRequest,
  never,
  HttpClient.HttpClient | Signer | BillsRateLimiter | BillsConfig
> = Effect.gen(function* () {
  const config = yield* BillsConfig
  const limiter = yield* BillsRateLimiter
  const signer = yield* Signer
  // No traceparent headers: trace ids of the user's system are none of the exchange's business.
  const client = HttpClient.withTracerPropagation(yield* HttpClient.HttpClient, false)

  /** Sends a request and reads the whole body within the timeout, then interprets it. */
  const exchange = (operation: CallName, request: HttpClientRequest.HttpClientRequest) =>
    client.execute(request).pipe(
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
      }),
      Effect.flatMap((response) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => interpret(operation, response, now))
      )
    )

  const attempt = (operation: OperationName, body: string): Effect.Effect<unknown, BillsError> =>
    Effect.gen(function* () {
      const path = operationPath[operation]
      const headers = yield* signer.headers({ method: "POST", path, query: "", body })
      const request = HttpClientRequest.post(config.baseUrl + path).pipe(
        HttpClientRequest.setHeaders({ ...headers, locale: config.locale }),
        HttpClientRequest.bodyText(body, "application/json")
      )
      return yield* exchange(operation, request)
    }).pipe(
      limiter.withPermit(operation, permitOutcome),
      Effect.onExit((exit) => {
        const counted = Metric.increment(BillsMetrics.forOperation(BillsMetrics.requests, operation))
        return permitOutcome(exit).rateLimited
          ? Effect.zipRight(counted, Metric.increment(BillsMetrics.forOperation(BillsMetrics.rateLimited, operation)))
          : counted
      }),
      Effect.map((answer) => answer.data),
      Effect.withSpan("BillsApi.attempt", { attributes: { operation } })
    )

  // The time endpoint is public and unsigned, and it is not one of the rate-limited operations.
  const measureOffset = Effect.gen(function* () {
    const before = yield* Clock.currentTimeMillis
    const { data } = yield* exchange("serverTime", HttpClientRequest.get(config.baseUrl + serverTimePath))
    const after = yield* Clock.currentTimeMillis
    const serverTime = yield* decodeData("serverTime", ServerTime)(data)
    // The server read its clock somewhere in the round trip; the midpoint halves the error.
    return Math.round(serverTime - (before + after) / 2)
  })

  // One measurement at a time; the generation lets fibers rejected together share one.
  const syncLock = yield* Effect.makeSemaphore(1)
  const generation = yield* Ref.make(0)
  const measureAndSet = retryTransient(measureOffset, config).pipe(
    Effect.tap((offset) => signer.setClockOffset(offset)),
    Effect.tap(() => Ref.update(generation, (n) => n + 1))
  )
  const syncClock = syncLock.withPermits(1)(measureAndSet).pipe(Effect.withSpan("BillsApi.syncClock"))
  const clock: ClockRepair = {
    generation: Ref.get(generation),
    resyncSince: (seen) =>
      syncLock.withPermits(1)(
        Effect.flatMap(Ref.get(generation), (current) =>
          current === seen ? Effect.asVoid(measureAndSet) : Effect.void
        )
      )
  }

  return {
    request: (operation, body) =>
      Effect.suspend(() => {
        // Every attempt after the first of this call is a retry.
        let attempts = 0
        const counted = Effect.suspend(() =>
          attempts++ === 0
            ? attempt(operation, body)
            : Effect.zipRight(
                Metric.increment(BillsMetrics.forOperation(BillsMetrics.retries, operation)),
                attempt(operation, body)
              )
        )
        return retryTransient(counted, config, clock)
      }),
    syncClock
  }
})
