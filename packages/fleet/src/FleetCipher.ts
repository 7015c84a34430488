/**
 * Credentials at rest: AES-256-GCM under the key of `BILLS_FLEET_KEY` (32 bytes, base64), read
 * as `Redacted` and kept so. Each sealing draws a fresh 96-bit nonce; the account's label is the
 * additional data, so a sealed row copied under another label does not open.
 *
 * While a key rotates, `BILLS_FLEET_KEY_PREVIOUS` holds the key it replaces: credentials open
 * under either, and are sealed under the new one only (`bills fleet rekey` then seals every row
 * under it, and the previous key can go).
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import type { Credentials } from "@account-bills/core"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { FleetCredentialsUnreadable, FleetKeyInvalid } from "./FleetErrors.js"

/**
 * What the cipher offers.
 *
 * @since 0.1.0
 * @category models
 */
export interface FleetCipherShape {
  /** The credentials sealed for `label`: `v1.` + base64 of nonce, tag and ciphertext. */
  readonly seal: (label: string, credentials: Credentials) => Effect.Effect<string>
  /** Opens what `seal` made for the same label under the key, or under the previous key. */
  readonly open: (label: string, sealed: string) => Effect.Effect<Credentials, FleetCredentialsUnreadable>
}

/** A 32-byte key from its base64 text, or why it is not one. */
const keyBytes = (key: Redacted.Redacted<string>, variable: string): Effect.Effect<Buffer, FleetKeyInvalid> => {
  const text = Redacted.value(key).trim()
  if (text === "") return Effect.fail(new FleetKeyInvalid({ reason: "is empty", variable }))
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text))
    return Effect.fail(new FleetKeyInvalid({ reason: "is not base64", variable }))
  const bytes = Buffer.from(text, "base64")
  return bytes.length === 32
    ? Effect.succeed(bytes)
    : Effect.fail(new FleetKeyInvalid({ reason: `is ${bytes.length} bytes long, not 32`, variable }))
}

/** The credentials sealed for `label` under `bytes`, or undefined when they do not open. */
const openWith = (bytes: Buffer, label: string, sealed: string): Credentials | undefined => {
  if (!sealed.startsWith(version)) return undefined
  const raw = Buffer.from(sealed.slice(version.length), "base64")
  if (raw.length < 28) return undefined
  const decipher = Crypto.createDecipheriv("aes-256-gcm", bytes, raw.subarray(0, 12))
  decipher.setAAD(Buffer.from(label, "utf8"))
  decipher.setAuthTag(raw.subarray(12, 28))
  let plain: string
  try {
    plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
  const decoded = decodePlain(plain)
  if (decoded._tag === "None") return undefined
  return {
    apiKey: Redacted.make(decoded.value.apiKey),
    secret: Redacted.make(decoded.value.secret),
    passphrase: Redacted.make(decoded.value.passphrase)
  }
}

const Plain = Schema.parseJson(
  Schema.Struct({ apiKey: Schema.String, secret: Schema.String, passphrase: Schema.String })
)
const encodePlain = Schema.encodeSync(Plain)
const decodePlain = Schema.decodeUnknownOption(Plain)

const version = "v1."

/**
 * The cipher of the fleet's credentials.
 *
 * @since 0.1.0
 * @category tags
 */
export class FleetCipher extends Context.Tag("@account-bills/fleet/FleetCipher")<FleetCipher, FleetCipherShape>() {
  /** A cipher under a 32-byte key given in base64, opening also what `previous` sealed. */
  static readonly make = (
    key: Redacted.Redacted<string>,
    previous?: Redacted.Redacted<string> | undefined
  ): Effect.Effect<FleetCipherShape, FleetKeyInvalid> =>
    Effect.gen(function* () {
      const bytes = yield* keyBytes(key, "BILLS_FLEET_KEY")
      const keys = previous === undefined ? [bytes] : [bytes, yield* keyBytes(previous, "BILLS_FLEET_KEY_PREVIOUS")]
      const seal = (label: string, credentials: Credentials) =>
        Effect.sync(() => {
          const nonce = Crypto.randomBytes(12)
          const cipher = Crypto.createCipheriv("aes-256-gcm", bytes, nonce)
          cipher.setAAD(Buffer.from(label, "utf8"))
          const plain = encodePlain({
            apiKey: Redacted.value(credentials.apiKey),
            secret: Redacted.value(credentials.secret),
            passphrase: Redacted.value(credentials.passphrase)
          })
          const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
          return version + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64")
        })
      const open = (label: string, sealed: string) =>
        Effect.suspend(() => {
          for (const each of keys) {
            const opened = openWith(each, label, sealed)
            if (opened !== undefined) return Effect.succeed(opened)
          }
          return Effect.fail(new FleetCredentialsUnreadable({ label }))
        })
      return FleetCipher.of({ seal, open })
    })

  /** A cipher under an explicit key. */
  static readonly layer = (key: Redacted.Redacted<string>): Layer.Layer<FleetCipher, FleetKeyInvalid> =>
    Layer.effect(FleetCipher, FleetCipher.make(key))

  /** A cipher under `BILLS_FLEET_KEY`, opening also what `BILLS_FLEET_KEY_PREVIOUS` sealed when it is set. */
  static readonly layerConfig: Layer.Layer<FleetCipher, FleetKeyInvalid> = Layer.effect(
    FleetCipher,
    Effect.gen(function* () {
      const key = yield* Effect.mapError(
        Config.redacted("BILLS_FLEET_KEY"),
        () => new FleetKeyInvalid({ reason: "is not set", variable: "BILLS_FLEET_KEY" })
      )
      // Set but empty is a mistake to say, not a rotation that has ended: keyBytes names it.
      const previous = yield* Effect.mapError(
        Config.option(Config.redacted("BILLS_FLEET_KEY_PREVIOUS")),
        () => new FleetKeyInvalid({ reason: "is not readable", variable: "BILLS_FLEET_KEY_PREVIOUS" })
      )
      return yield* FleetCipher.make(key, Option.getOrUndefined(previous))
    })
  )
}
