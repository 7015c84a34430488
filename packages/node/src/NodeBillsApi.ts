/**
 * The whole client stack for Node.js: undici as the HttpClient, settings and credentials
 * from the environment.
 *
 * @since 0.1.0
 */
import {
  BillsApi,
  BillsConfig,
  type BillsConfigInput,
  type Credentials,
  BillsRateLimiter,
  type RateLimitOptions,
  Signer
} from "@account-bills/core"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as ConfigError from "effect/ConfigError"
import * as Layer from "effect/Layer"
import { explainMissing } from "./internal/environment.js"

/**
 * Options that the environment does not carry.
 *
 * @since 0.1.0
 * @category models
 */
export interface NodeBillsApiOptions {
  /** Settings on top of `WEEX_BASE_URL`, `WEEX_CONTRACT_BASE_URL`, `WEEX_LOCALE` and `WEEX_API_VERSION`. */
  readonly config?: BillsConfigInput
  /** The rate limit; 10 requests per second per operation by default. */
  readonly rateLimit?: RateLimitOptions
  /** The HttpClient; undici by default. */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient>
}

const assemble = <E>(
  signer: Layer.Layer<Signer, E>,
  config: Layer.Layer<BillsConfig, ConfigError.ConfigError>,
  options: NodeBillsApiOptions
): Layer.Layer<BillsApi, E | ConfigError.ConfigError> =>
  BillsApi.layer.pipe(
    Layer.provide(options.httpClient ?? NodeHttpClient.layerUndici),
    Layer.provide(signer),
    Layer.provide(BillsRateLimiter.layer(options.rateLimit)),
    Layer.provide(config)
  )

/**
 * `BillsApi` for Node.js.
 *
 * @since 0.1.0
 * @category utils
 */
export const NodeBillsApi = {
  /**
   * Builds everything from the environment: `WEEX_API_KEY`, `WEEX_API_SECRET`,
   * `WEEX_API_PASSPHRASE`, `WEEX_BASE_URL` (https, or http to a loopback host only),
   * `WEEX_CONTRACT_BASE_URL` (the futures interface's host, the same rule), `WEEX_LOCALE` and `WEEX_API_VERSION` (`v2`, the default, or `v3`), over undici. A missing
   * variable fails with a `ConfigError` that names it and says what it is.
   */
  layerConfig: (options: NodeBillsApiOptions = {}): Layer.Layer<BillsApi, ConfigError.ConfigError> =>
    Layer.mapError(assemble(Signer.layerConfig(), BillsConfig.layerConfig(options.config), options), explainMissing),
  /** Builds everything from explicit credentials and settings, over undici. */
  layer: (
    credentials: Credentials,
    options: NodeBillsApiOptions = {}
  ): Layer.Layer<BillsApi, ConfigError.ConfigError> =>
    assemble(Signer.layer(credentials), BillsConfig.layer(options.config), options)
} as const
