/**
 * Signs requests: turns the parts of a request into the ACCESS-* headers. The credentials
 * are held as `Redacted`, and the header names are added to the platform's redaction list so
 * traces and logs never show them.
 *
 * @since 0.1.0
 */
import * as Headers from "@effect/platform/Headers"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { importSecret, signWithKey } from "./Signature.js"

/**
 * API credentials of one key.
 *
 * @since 0.1.0
 * @category models
 */
export interface Credentials {
  readonly apiKey: Redacted.Redacted<string>
  readonly secret: Redacted.Redacted<string>
  readonly passphrase: Redacted.Redacted<string>
}

/**
 * Header names that carry a credential or a value derived from one.
 *
 * @since 0.1.0
 * @category constants
 */
export const secretHeaderNames: ReadonlyArray<string> = ["access-key", "access-sign", "access-passphrase"]

/**
 * The parts of a request the signature covers, less the timestamp, which the signer takes.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestToSign {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly body: string
  /**
   * The offset to the clock of the host the request goes to, when that host keeps its own (the
   * futures host, when it is not the spot host); the signer's own offset otherwise. Not signed.
   *
   * @since 0.3.0
   */
  readonly clockOffset?: number | undefined
}

/**
 * What the `Signer` service does: sign one attempt, and hold the offset to the exchange's clock.
 *
 * @since 0.1.0
 * @category models
 */
export interface SignerShape {
  /** The ACCESS-* headers for one attempt, with a fresh timestamp from `Clock`. */
  readonly headers: (request: RequestToSign) => Effect.Effect<Record<string, string>>
  /** Milliseconds added to the local clock to get the exchange's clock. */
  readonly clockOffset: Effect.Effect<number>
  /** Sets the offset, e.g. after measuring the exchange's clock. */
  readonly setClockOffset: (millis: number) => Effect.Effect<void>
}

/**
 * The request signer.
 *
 * @since 0.1.0
 * @category tags
 */
export class Signer extends Context.Tag("@account-bills/core/Signer")<Signer, SignerShape>() {
  /** A signer for the given credentials. */
  static readonly make = Effect.fnUntraced(function* (credentials: Credentials) {
    const key = yield* importSecret(Redacted.value(credentials.secret))
    const offset = yield* Ref.make(0)
    const headers = Effect.fnUntraced(function* ({ clockOffset, ...request }: RequestToSign) {
      const now = yield* Clock.currentTimeMillis
      const timestamp = String(now + (clockOffset ?? (yield* Ref.get(offset))))
      const signature = yield* signWithKey(key, { timestamp, ...request })
      return {
        "ACCESS-KEY": Redacted.value(credentials.apiKey),
        "ACCESS-SIGN": signature,
        "ACCESS-PASSPHRASE": Redacted.value(credentials.passphrase),
        "ACCESS-TIMESTAMP": timestamp
      }
    })
    return Signer.of({
      headers,
      clockOffset: Ref.get(offset),
      setClockOffset: (millis) => Ref.set(offset, Math.round(millis))
    })
  })

  /** A signer layer; it also redacts the ACCESS-* headers wherever the platform logs headers. */
  static readonly layer = (credentials: Credentials): Layer.Layer<Signer> =>
    Layer.merge(Layer.effect(Signer, Signer.make(credentials)), redactSecretHeaders)

  /** Reads `WEEX_API_KEY`, `WEEX_API_SECRET` and `WEEX_API_PASSPHRASE`. */
  static readonly layerConfig = (
    config: Config.Config<Credentials> = credentialsConfig
  ): Layer.Layer<Signer, ConfigError.ConfigError> =>
    Layer.unwrapEffect(Effect.map(config, (credentials) => Signer.layer(credentials)))
}

/**
 * A credential variable, as `Redacted`: one set to the empty string (`WEEX_API_KEY=`) counts as
 * missing, since the exchange would only refuse it.
 */
const credential = (name: string): Config.Config<Redacted.Redacted> =>
  Config.redacted(
    Config.mapOrFail(Config.string(name), (value) =>
      value === "" ? Either.left(ConfigError.MissingData([], "is set but empty")) : Either.right(value)
    )
  )

/**
 * The credentials from the environment, each read as `Redacted`; an empty variable is missing.
 *
 * @since 0.1.0
 * @category config
 */
export const credentialsConfig: Config.Config<Credentials> = Config.all({
  apiKey: credential("WEEX_API_KEY"),
  secret: credential("WEEX_API_SECRET"),
  passphrase: credential("WEEX_API_PASSPHRASE")
})

/** The redacted names with the ACCESS-* ones added. */
const withSecretNames = (names: ReadonlyArray<string | RegExp>): ReadonlyArray<string | RegExp> => [
  ...names,
  ...secretHeaderNames
]

/**
 * Adds the ACCESS-* names to `Headers.currentRedactedNames` for everything the layer is
 * provided to.
 *
 * @since 0.1.0
 * @category layers
 */
export const redactSecretHeaders: Layer.Layer<never> = Layer.fiberRefLocallyScopedWith(
  Headers.currentRedactedNames,
  withSecretNames
)

/**
 * Runs `effect` with the ACCESS-* headers redacted wherever the platform shows headers, as
 * {@link redactSecretHeaders} does for a layer's scope: for a client made without layers (a
 * fleet's pass makes one per pass, and a layer's scope and memo map cost it more than the
 * client itself).
 *
 * @since 0.2.0
 * @category layers
 */
export const withSecretHeadersRedacted = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locallyWith(effect, Headers.currentRedactedNames, withSecretNames)
