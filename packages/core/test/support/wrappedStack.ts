/**
 * The real client over the in-memory fake exchange, reached through an HttpClient the test puts
 * in front of it (to hold, count or change requests on their way), with the fake's default
 * credentials and no limiter.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { type ApiVersion, BillsApi, BillsConfig, BillsRateLimiter, Signer } from "../../src/index.js"
import { FakeExchange, type FakeExchangeOptions } from "../../src/testing/index.js"

/**
 * `BillsApi` and the fake (built from `exchange`) behind `client`, which reaches the fake; the
 * client speaks `apiVersion` (default v2), which the fake must serve too.
 */
export const wrappedStack = (
  client: Layer.Layer<HttpClient.HttpClient, never, FakeExchange>,
  exchange: FakeExchangeOptions,
  apiVersion: ApiVersion = "v2"
): Layer.Layer<BillsApi | HttpClient.HttpClient | FakeExchange> =>
  BillsApi.layer.pipe(
    Layer.provideMerge(client),
    Layer.provideMerge(FakeExchange.layerExchange(exchange)),
    Layer.provide(
      Signer.layer({
        apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
        secret: Redacted.make(FakeExchange.defaultCredentials.secret),
        passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
      })
    ),
    Layer.provide(BillsRateLimiter.layerUnlimited),
    Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake-exchange.test", apiVersion })))
  )
