/**
 * Builds requests to the fake exchange signed the way the real exchange expects, so tests can
 * talk to `FakeExchange.handle` (or any transport of it) without the client.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { ApiVersion } from "../BillsConfig.js"
import { versionPaths } from "../internal/protocol.js"
import type { OperationName } from "../Operation.js"
import * as Signature from "../Signature.js"
import { defaultCredentials, type FakeCredentials } from "./FakeExchange.js"
import type { FakeRequest } from "./FakeProtocol.js"

/**
 * What to send; `body` is used verbatim when it is a string, JSON-encoded otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export interface SignedRequestOptions {
  readonly operation: OperationName
  /** The interface version whose path is signed and sent (default `"v2"`). */
  readonly apiVersion?: ApiVersion | undefined
  readonly body?: string | object | undefined
  /** Epoch ms (default 0: the start of `TestClock`). */
  readonly timestamp?: number | string | undefined
  readonly credentials?: FakeCredentials | undefined
  readonly method?: string | undefined
  readonly query?: string | undefined
  /** Extra or overriding headers (lower-case names). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Header names (lower case) to leave out after signing. */
  readonly omit?: ReadonlyArray<string> | undefined
}

/**
 * A correctly signed request (unless told to break it via `headers` / `omit`).
 *
 * @since 0.1.0
 * @category utils
 */
export const signedRequest = (options: SignedRequestOptions): Effect.Effect<FakeRequest> => {
  const credentials = options.credentials ?? defaultCredentials
  const body = typeof options.body === "string" ? options.body : JSON.stringify(options.body ?? {})
  const timestamp = String(options.timestamp ?? 0)
  const method = options.method ?? "POST"
  const path = versionPaths[options.apiVersion ?? "v2"].operationPath[options.operation]
  const query = options.query ?? ""
  return Effect.map(Signature.sign(credentials.secret, { timestamp, method, path, query, body }), (sign) => {
    const headers: Record<string, string> = {
      "access-key": credentials.apiKey,
      "access-sign": sign,
      "access-passphrase": credentials.passphrase,
      "access-timestamp": timestamp,
      "content-type": "application/json",
      locale: "en-US",
      ...options.headers
    }
    for (const name of options.omit ?? []) delete headers[name]
    return { method, path, query, headers, body }
  })
}
