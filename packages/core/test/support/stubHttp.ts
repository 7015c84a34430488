/**
 * A tiny scripted HttpClient for the core client's own tests: it records every request and
 * answers from a list of canned responses (the last one repeats).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { BillsApi, BillsConfig, BillsRateLimiter, Signer } from "../../src/index.js"
import * as Redacted from "effect/Redacted"

export interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
}

export type Canned =
  | { readonly status: number; readonly body: string; readonly headers?: Record<string, string> }
  | { readonly reset: true }
  | { readonly hang: true }

export const envelope = (data: unknown, code = "00000", msg = "success") =>
  JSON.stringify({ code, msg, requestTime: 1700000000000, data })

export const credentials = {
  apiKey: Redacted.make("key-AKIA-visible-nowhere"),
  secret: Redacted.make("secret-s3cr3t-visible-nowhere"),
  passphrase: Redacted.make("pass-phrase-visible-nowhere")
}

export const secretValues = ["key-AKIA-visible-nowhere", "secret-s3cr3t-visible-nowhere", "pass-phrase-visible-nowhere"]

export const makeStub = (answers: ReadonlyArray<Canned>) => {
  const requests: Array<Recorded> = []
  const client = HttpClient.make((request, url) =>
    Effect.gen(function* () {
      const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
      requests.push({ method: request.method, url: url.toString(), headers: { ...request.headers }, body })
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)]
      if (answer === undefined || "reset" in answer) {
        return yield* Effect.fail(
          new HttpClientError.RequestError({ request, reason: "Transport", description: "socket hang up" })
        )
      }
      if ("hang" in answer) return yield* Effect.never
      return HttpClientResponse.fromWeb(
        request,
        new Response(answer.body, { status: answer.status, headers: answer.headers ?? {} })
      )
    })
  )
  const layer = BillsApi.layer.pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, client)),
    Layer.provide(Signer.layer(credentials)),
    Layer.provide(BillsRateLimiter.layerUnlimited),
    Layer.provide(BillsConfig.layer({ baseUrl: "https://exchange.test", maxAttempts: 3 }))
  )
  return { requests, layer }
}
