/**
 * The fake exchange's check of a request's headers and signature, in the exchange's order:
 * missing headers, malformed timestamp, wrong key, wrong passphrase, stale timestamp, then
 * the signature itself.
 */
import * as Effect from "effect/Effect"
import * as Signature from "../../Signature.js"
import { millisPattern } from "../../internal/grammar.js"
import type { FakeCredentials } from "../FakeExchange.js"
import { type FakeRequest, rejections } from "../FakeProtocol.js"

/**
 * The rejection a request earns, or undefined when it is authentic. `maxSkewMillis` is read at
 * each request, since the fake's behaviour can be reconfigured.
 */
export const makeAuthentication = (
  credentials: FakeCredentials,
  key: Signature.SigningKey,
  maxSkewMillis: () => number
) =>
  Effect.fnUntraced(function* (request: FakeRequest, now: number) {
    const h = request.headers
    const apiKey = h["access-key"]
    const sign = h["access-sign"]
    const timestamp = h["access-timestamp"]
    const passphrase = h["access-passphrase"]
    if (apiKey === undefined || apiKey === "") return rejections.missingKey
    if (sign === undefined || sign === "") return rejections.missingSign
    if (timestamp === undefined || timestamp === "" || passphrase === undefined || passphrase === "") {
      return rejections.missingTimestampOrPassphrase
    }
    if (!millisPattern.test(timestamp)) return rejections.invalidTimestamp
    if (apiKey !== credentials.apiKey) return rejections.invalidKey
    if (passphrase !== credentials.passphrase) return rejections.invalidPassphrase
    if (Math.abs(Number(timestamp) - now) > maxSkewMillis()) return rejections.timestampExpired
    const expected = yield* Signature.signWithKey(key, {
      timestamp,
      method: request.method,
      path: request.path,
      query: request.query,
      body: request.body
    })
    return expected === sign ? undefined : rejections.signature
  })
