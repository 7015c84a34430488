/**
 * An `HttpClient` that answers from a fake exchange's handler in memory: no sockets, so the real
 * client stack runs under `TestClock`. Reset faults become transport `RequestError`s, hangs never
 * complete (only interruption, e.g. the client's timeout, ends them).
 *
 * @since 0.1.0
 */
import * as Headers from "@effect/platform/Headers"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { FakeRequest, FakeResponse } from "./FakeProtocol.js"
import * as Latency from "./Latency.js"

const decoder = new TextDecoder()

const encodeError = (request: HttpClientRequest.HttpClientRequest, description: string, cause?: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Encode", description, cause })

/**
 * The exact body text of a request, as a server would receive it.
 *
 * @since 0.1.0
 * @category utils
 */
export const bodyText = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<string, HttpClientError.RequestError> => {
  const body: HttpBody.HttpBody = request.body
  switch (body._tag) {
    case "Empty":
      return Effect.succeed("")
    case "Uint8Array":
      return Effect.succeed(decoder.decode(body.body))
    case "Raw":
      if (typeof body.body === "string") return Effect.succeed(body.body)
      if (body.body instanceof Uint8Array) return Effect.succeed(decoder.decode(body.body))
      return Effect.fail(encodeError(request, "the fake exchange reads only text or bytes from a raw body"))
    case "Stream":
      return body.stream.pipe(
        Stream.runFold("", (text, chunk) => text + decoder.decode(chunk, { stream: true })),
        Effect.mapError((cause) => encodeError(request, "the request body stream failed", cause))
      )
    case "FormData":
      return Effect.fail(encodeError(request, "the fake exchange does not read form data"))
  }
}

/**
 * The request a response carries, without the headers whose names are redacted (the Signer's
 * ACCESS-*): the response is the success value of the client's `http.client` span, which a
 * tracer may keep or export, and `Headers` redacts only how they are shown, not the values.
 */
const shownRequest = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.map(FiberRef.get(Headers.currentRedactedNames), (names) =>
    HttpClientRequest.make(request.method)(request.url, {
      urlParams: request.urlParams,
      hash: Option.getOrUndefined(request.hash),
      headers: Headers.remove(request.headers, names),
      body: request.body
    })
  )

/**
 * An `HttpClient` whose every request is answered by `handle`, after half of `latency` (when
 * given) and followed by the other half.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  handle: (request: FakeRequest) => Effect.Effect<FakeResponse>,
  latency?: Latency.LatencyOptions
): HttpClient.HttpClient => {
  const delayed = Latency.around(latency)
  return HttpClient.make((request, url) =>
    Effect.gen(function* () {
      // Every value this client returns or fails with holds the request without its secrets.
      const shown = yield* shownRequest(request)
      const body = yield* bodyText(shown)
      const response = yield* delayed(
        handle({
          method: request.method,
          path: url.pathname,
          query: url.search.startsWith("?") ? url.search.slice(1) : url.search,
          headers: request.headers,
          body
        })
      )
      switch (response._tag) {
        case "Reset":
          return yield* new HttpClientError.RequestError({
            request: shown,
            reason: "Transport",
            description: "connection reset by the fake exchange"
          })
        case "Hang":
          return yield* Effect.never
        case "Response":
        case "Truncated":
          return HttpClientResponse.fromWeb(
            shown,
            new Response(response.body, { status: response.status, headers: response.headers })
          )
      }
    })
  )
}
