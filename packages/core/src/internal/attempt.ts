/**
 * One attempt of a call: a rate-limit permit, a fresh signature, the request sent and its whole
 * body read within the per-attempt timeout, then the answer interpreted by the interface
 * version; the attempt counts itself in the metrics.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type { BillsConfigShape } from "../BillsConfig.js"
import * as BillsMetrics from "../BillsMetrics.js"
import type { BillsRateLimiterShape, PermitOutcome } from "../BillsRateLimiter.js"
import { BillsApiError, BillsDecodeError, type BillsError, BillsTransportError } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import type { SignerShape } from "../Signer.js"
import { type Answer, type CallName, type EnvelopeInterpreter, notFound } from "./envelope.js"
import { exactNumbers } from "./exactNumbers.js"
import { timeoutFail } from "./requestTimeout.js"
import { lastSentAt } from "./sentAt.js"

/** Sends a request and returns the interpreted answer. */
export type Send = (
  operation: CallName,
  request: HttpClientRequest.HttpClientRequest
) => Effect.Effect<Answer, BillsError>

/**
 * Sends a request and reads the whole body within the timeout, then interprets it with the
 * version's interpreter. Transport failures and timeouts become `BillsTransportError`.
 */
export const makeSend =
  (client: HttpClient.HttpClient, config: BillsConfigShape, wire: EnvelopeInterpreter): Send =>
  (operation, request) => {
    return client.execute(request).pipe(
      Effect.flatMap((response) =>
        Effect.map(response.text, (received) => ({
          status: response.status,
          // Ids above 2^53 come as bare numbers (the futures docs' sample; any field of any
          // operation may): keep their digits.
          text: exactNumbers(received),
          received,
          retryAfter: response.headers["retry-after"]
        }))
      ),
      timeoutFail({
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
        response.status === 404
          ? Effect.fail(notFound(operation, response, request.url))
          : Effect.flatMap(Clock.currentTimeMillis, (now) => wire.interpret(operation, response, now))
      )
    )
  }

/**
 * What the limiter learns from an attempt: where the server placed it (its stamp, when the
 * version sends one), whether it refused it, and whether it answered at all (then the attempt
 * took a round trip, which places arrivals when there is no stamp).
 */
export const permitOutcome = (exit: Exit.Exit<unknown, unknown>): PermitOutcome => {
  if (Exit.isSuccess(exit)) {
    return { serverTime: (exit.value as Answer).requestTime, rateLimited: false, answered: true }
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

/**
 * Builds the attempt of an operation call: `attempt(operation, body)(ordinal)` takes a permit,
 * signs, sends and interprets; the ordinal (1-based within the call) tells a retry apart. It
 * answers the whole `Answer`, so that a decode failure can quote the body as received.
 */
export const makeAttempt =
  (options: {
    readonly send: Send
    readonly signer: SignerShape
    readonly limiter: BillsRateLimiterShape
    readonly config: BillsConfigShape
    readonly wire: EnvelopeInterpreter
    /** The futures host's own clock offset, when it keeps one and it was measured. */
    readonly contractClockOffset?: Effect.Effect<number | undefined> | undefined
  }) =>
  (operation: OperationName, body: string) =>
  (ordinal: number): Effect.Effect<Answer, BillsError> => {
    const { config, limiter, send, signer, wire } = options
    const counted = Metric.increment(BillsMetrics.forOperation(BillsMetrics.requests, operation))
    const retried = Metric.increment(BillsMetrics.forOperation(BillsMetrics.retries, operation))
    const limited = Metric.increment(BillsMetrics.forOperation(BillsMetrics.rateLimited, operation))
    const attempt = Effect.gen(function* () {
      // Granted: what follows is the round trip, the wait before it was the limiter's.
      yield* FiberRef.set(lastSentAt, yield* Clock.currentTimeMillis)
      const path = wire.operationPath[operation]
      const clockOffset =
        operation === "contractBills" && options.contractClockOffset !== undefined
          ? yield* options.contractClockOffset
          : undefined
      const headers = yield* signer.headers({
        method: "POST",
        path,
        query: "",
        body,
        ...(clockOffset === undefined ? {} : { clockOffset })
      })
      // The contract interface has a host of its own.
      const base = operation === "contractBills" ? config.contractBaseUrl : config.baseUrl
      const request = HttpClientRequest.post(base + path).pipe(
        HttpClientRequest.setHeaders({ ...headers, locale: config.locale }),
        HttpClientRequest.bodyText(body, "application/json")
      )
      return yield* send(operation, request)
    }).pipe(
      limiter.withPermit(operation, permitOutcome),
      Effect.onExit((exit) => (permitOutcome(exit).rateLimited ? Effect.zipRight(counted, limited) : counted)),
      Effect.withSpan("BillsApi.attempt", { attributes: { operation } })
    )
    // Every attempt after the first of this call is a retry.
    return ordinal > 1 ? Effect.zipRight(retried, attempt) : attempt
  }
