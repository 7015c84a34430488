/**
 * The real client stack over the in-memory fake exchange, on a route the test scripts request by
 * request, with or without the server's `requestTime` stamps: what the limiter's safety tests
 * need beyond the fake's seeded latency.
 *
 * Without stamps the client and the fake speak v3, whose answers carry no stamp.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { BillsApi, BillsConfig, BillsRateLimiter, type RateLimitOptions, Signer } from "../../src/index.js"
import {
  defaultCredentials,
  FakeExchange,
  type FakeExchangeOptions,
  FakeHttpClient,
  type FakeResponse
} from "../../src/testing/index.js"

/** The way to the server and back of one request, in ms. */
export interface Leg {
  readonly there: number
  readonly back: number
}

/** Whether the answers carry the server's stamps: v2's envelopes do, v3's answers do not. */
export type Stamps = "stamped" | "stamp-free"

/**
 * `BillsApi` with the default limiter over a fake exchange (10 per second, strict) reached by
 * `route(n)` for the `n`-th request (0-based, in the order they are sent), or by the fake's own
 * `latency` when no route is given.
 */
export const routeStack = (options: {
  readonly stamps: Stamps
  readonly route?: ((n: number) => Leg) | undefined
  readonly exchange?: FakeExchangeOptions | undefined
  readonly rateLimit?: RateLimitOptions | undefined
}): Layer.Layer<BillsApi | FakeExchange> => {
  const client = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(FakeExchange, (exchange) => {
      let sent = 0
      const routed = (handled: Effect.Effect<FakeResponse>) => {
        if (options.route === undefined) return handled
        const leg = options.route(sent++)
        return Effect.sleep(Duration.millis(leg.there)).pipe(
          Effect.zipRight(handled),
          Effect.zipLeft(Effect.sleep(Duration.millis(leg.back)))
        )
      }
      return FakeHttpClient.make((request) => routed(exchange.handle(request)), options.exchange?.latency)
    })
  )
  const apiVersion = options.stamps === "stamped" ? "v2" : "v3"
  return BillsApi.layer.pipe(
    Layer.provide(client),
    Layer.provideMerge(FakeExchange.layerExchange({ ...options.exchange, apiVersion })),
    Layer.provide(
      Signer.layer({
        apiKey: Redacted.make(defaultCredentials.apiKey),
        secret: Redacted.make(defaultCredentials.secret),
        passphrase: Redacted.make(defaultCredentials.passphrase)
      })
    ),
    Layer.provide(BillsRateLimiter.layer(options.rateLimit)),
    Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake-exchange.test", apiVersion })))
  )
}
