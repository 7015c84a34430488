/**
 * The request signature of the exchange, shared by the client's `Signer` and the fake
 * exchange that verifies it. HMAC comes from `@noble/hashes`, so core stays platform-free.
 *
 * @since 0.1.0
 */
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"

/**
 * The parts of a request that are signed.
 *
 * @since 0.1.0
 * @category models
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
 * @category utils
 */
export const prehash = (parts: SignedParts): string =>
  parts.timestamp + parts.method.toUpperCase() + parts.path + (parts.query === "" ? "" : `?${parts.query}`) + parts.body

const encoder = new TextEncoder()

/**
 * A secret prepared for HMAC-SHA256, cloned per message so the key schedule is computed once.
 *
 * @since 0.1.0
 * @category models
 */
export type SigningKey = ReturnType<typeof hmac.create>

/**
 * Prepares an API secret as an HMAC-SHA256 key.
 *
 * Signing is synchronous on purpose (pure JS, no Web Crypto promise): a fiber awaiting a
 * promise looks idle to `TestClock`, which could then move time between the timestamp and the
 * send, and tests built on the client would stop being deterministic.
 *
 * @since 0.1.0
 * @category utils
 */
export const importSecret = (secret: string): Effect.Effect<SigningKey> =>
  Effect.sync(() => hmac.create(sha256, encoder.encode(secret)))

/**
 * `base64(HMAC-SHA256(secret, prehash(parts)))`.
 *
 * @since 0.1.0
 * @category utils
 */
export const signWithKey = (key: SigningKey, parts: SignedParts): Effect.Effect<string> =>
  Effect.sync(() =>
    Encoding.encodeBase64(
      key
        .clone()
        .update(encoder.encode(prehash(parts)))
        .digest()
    )
  )

/**
 * Signs with a secret given as text; `signWithKey` avoids preparing the key per request.
 *
 * @since 0.1.0
 * @category utils
 */
export const sign = (secret: string, parts: SignedParts): Effect.Effect<string> =>
  Effect.flatMap(importSecret(secret), (key) => signWithKey(key, parts))
