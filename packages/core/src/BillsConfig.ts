/**
 * Where and how the client talks to the exchange.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { validateBaseUrl } from "./internal/baseUrl.js"

/**
 * Which interface of the exchange the client speaks: `"v2"` (envelopes with a server stamp) or
 * `"v3"` (bare payloads, negative error codes, `/api/v3/...` paths). Signing is the same.
 *
 * @since 0.1.0
 * @category models
 */
export type ApiVersion = "v2" | "v3"

/**
 * Settings of the client. Every field has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsConfigShape {
  /** Origin of the exchange, without a trailing slash. */
  readonly baseUrl: string
  /**
   * Origin of the exchange's contract (futures) interface, where `contractBills` goes; it has a
   * host of its own. Since 0.2.0.
   */
  readonly contractBaseUrl: string
  /** Language tag sent in the `locale` header. */
  readonly locale: string
  /** How long one attempt may take, from sending to the whole body read. */
  readonly requestTimeout: Duration.Duration
  /**
   * Attempts per call while failures are transient (429, 5xx, maintenance, timeouts, broken
   * connections or bodies), the first included. A rejected timestamp adds one attempt after
   * the clock is measured again.
   */
  readonly maxAttempts: number
  /** First retry delay; it doubles per attempt, with jitter, up to `maxRetryDelay`. */
  readonly retryBaseDelay: Duration.Duration
  /**
   * Upper bound of one retry delay. A `Retry-After` longer than this ends the retries at once,
   * with the error carrying the requested wait.
   */
  readonly maxRetryDelay: Duration.Duration
  /** The exchange's interface version; `"v2"` unless `WEEX_API_VERSION` or an override says otherwise. */
  readonly apiVersion: ApiVersion
}

/**
 * What a caller may override.
 *
 * @since 0.1.0
 * @category models
 */
export type BillsConfigInput = {
  readonly [K in keyof BillsConfigShape]?: BillsConfigShape[K] extends Duration.Duration
    ? Duration.DurationInput
    : BillsConfigShape[K]
}

/** WEEX's spot API v2, en-US, 10 s per attempt, 5 attempts; public as `BillsConfig.defaults`. */
const defaults: BillsConfigShape = {
  baseUrl: "https://api-spot.weex.com",
  contractBaseUrl: "https://api-contract.weex.com",
  locale: "en-US",
  requestTimeout: Duration.seconds(10),
  maxAttempts: 5,
  retryBaseDelay: Duration.millis(250),
  maxRetryDelay: Duration.seconds(10),
  apiVersion: "v2"
}

/**
 * The client's settings.
 *
 * @since 0.1.0
 * @category tags
 */
export class BillsConfig extends Context.Tag("@account-bills/core/BillsConfig")<BillsConfig, BillsConfigShape>() {
  /** The settings when nothing is overridden: WEEX's spot API, en-US, 10 s per attempt, 5 attempts. */
  static readonly defaults: BillsConfigShape = defaults

  /**
   * Settings from defaults and overrides; fails with a `ConfigError` on a bad base URL,
   * attempt count or request timeout.
   */
  static readonly make = (input: BillsConfigInput = {}): Effect.Effect<BillsConfigShape, ConfigError.ConfigError> =>
    Effect.gen(function* () {
      const baseUrl = yield* Either.mapLeft(validateBaseUrl(input.baseUrl ?? defaults.baseUrl), (message) =>
        ConfigError.InvalidData(["WEEX_BASE_URL"], message)
      )
      const contractBaseUrl = yield* Either.mapLeft(
        validateBaseUrl(input.contractBaseUrl ?? defaults.contractBaseUrl),
        (message) => ConfigError.InvalidData(["WEEX_CONTRACT_BASE_URL"], message)
      )
      const maxAttempts = input.maxAttempts ?? defaults.maxAttempts
      if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
        return yield* Effect.fail(
          ConfigError.InvalidData(["maxAttempts"], "maxAttempts must be an integer of at least 1")
        )
      }
      const requestTimeout = Duration.decode(input.requestTimeout ?? defaults.requestTimeout)
      if (!Duration.greaterThan(requestTimeout, Duration.zero)) {
        // A zero timeout would fail every attempt before it could be answered.
        return yield* Effect.fail(ConfigError.InvalidData(["requestTimeout"], "requestTimeout must be longer than 0"))
      }
      const apiVersion = input.apiVersion ?? defaults.apiVersion
      if (apiVersion !== "v2" && apiVersion !== "v3") {
        // Callers from JavaScript or a cast can pass anything; only the two versions exist.
        return yield* Effect.fail(ConfigError.InvalidData(["apiVersion"], `apiVersion must be "v2" or "v3"`))
      }
      return {
        baseUrl,
        contractBaseUrl,
        locale: input.locale ?? defaults.locale,
        requestTimeout,
        maxAttempts,
        retryBaseDelay: Duration.decode(input.retryBaseDelay ?? defaults.retryBaseDelay),
        maxRetryDelay: Duration.decode(input.maxRetryDelay ?? defaults.maxRetryDelay),
        apiVersion
      }
    })

  /** A layer from explicit settings. */
  static readonly layer = (input: BillsConfigInput = {}): Layer.Layer<BillsConfig, ConfigError.ConfigError> =>
    Layer.effect(BillsConfig, BillsConfig.make(input))

  /**
   * The settings the environment gives: `WEEX_BASE_URL`, `WEEX_CONTRACT_BASE_URL`, `WEEX_LOCALE`
   * and `WEEX_API_VERSION` (`v2` or `v3`), each only when set. Every program of ours that talks to the exchange (the
   * `bills` commands, a fleet runner) reads them here, so they honour the same variables.
   */
  static readonly input: Config.Config<BillsConfigInput> = Config.all({
    baseUrl: Config.option(Config.nonEmptyString("WEEX_BASE_URL")),
    contractBaseUrl: Config.option(Config.nonEmptyString("WEEX_CONTRACT_BASE_URL")),
    locale: Config.option(Config.nonEmptyString("WEEX_LOCALE")),
    apiVersion: Config.option(
      Config.nonEmptyString("WEEX_API_VERSION").pipe(
        Config.validate({
          message: 'WEEX_API_VERSION must be "v2" or "v3"',
          validation: (value): value is ApiVersion => value === "v2" || value === "v3"
        })
      )
    )
  }).pipe(
    Config.map(
      (read): BillsConfigInput => ({
        ...(read.apiVersion._tag === "Some" ? { apiVersion: read.apiVersion.value } : {}),
        ...(read.baseUrl._tag === "Some" ? { baseUrl: read.baseUrl.value } : {}),
        ...(read.contractBaseUrl._tag === "Some" ? { contractBaseUrl: read.contractBaseUrl.value } : {}),
        ...(read.locale._tag === "Some" ? { locale: read.locale.value } : {})
      })
    )
  )

  /** A layer from {@link BillsConfig.input} (the `WEEX_*` variables), with `overrides` on top. */
  static readonly layerConfig = (overrides: BillsConfigInput = {}): Layer.Layer<BillsConfig, ConfigError.ConfigError> =>
    Layer.effect(
      BillsConfig,
      Effect.flatMap(BillsConfig.input, (read) => BillsConfig.make({ ...read, ...overrides }))
    )
}
