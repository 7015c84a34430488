/**
 * The request signature of the exchange, as a pure function shared by the client's `Signer`
 * and the fake exchange that verifies it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"

/**
 * The parts of a request that are signed.
 *
 * @since 0.1.0
 */
export interface SignedParts {
  /** Epoch milliseconds as a digit string, identical to the ACCESS-TIMESTAMP header. */
  readonly timestamp: string
  readonly method: string
  /** Full request path, e.g. `/api/v2/account/bills`. */
  readonly path: string
  /** Query string without the leading `?`; empty when there is none. */
  readonly query: string
  /** The exact body text that is sent. */
  readonly body: string
}

/**
 * The string that is signed: `timestamp + METHOD + path + ("?" + query, if any) + body`.
 *
 * @since 0.1.0
 */
export const prehash = (parts: SignedParts): string =>
  parts.timestamp + parts.method.toUpperCase() + parts.path + (parts.query === "" ? "" : `?${parts.query}`) + parts.body

const encoder = new TextEncoder()

/**
 * An imported HMAC key (Web Crypto's `CryptoKey`, named without the DOM library).
 *
 * @since 0.1.0
 */
export type SigningKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>

/**
 * Imports an API secret as an HMAC-SHA256 key (Web Crypto, so core stays platform-free).
 *
 * @since 0.1.0
 */
export const importSecret = (secret: string): Effect.Effect<SigningKey> =>
  Effect.promise(() =>
    globalThis.crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign"
    ])
  )

/**
 * `base64(HMAC-SHA256(secret, prehash(parts)))`.
 *
 * @since 0.1.0
 */
export const signWithKey = (key: SigningKey, parts: SignedParts): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.sign("HMAC", key, encoder.encode(prehash(parts)))).pipe(
    Effect.map((mac) => Encoding.encodeBase64(new Uint8Array(mac)))
  )

/**
 * Signs with a secret given as text; `signWithKey` avoids re-importing the key per request.
 *
 * @since 0.1.0
 */
export const sign = (secret: string, parts: SignedParts): Effect.Effect<string> =>
  Effect.flatMap(importSecret(secret), (key) => signWithKey(key, parts))
