/**
 * The one rule on the exchange's address.
 */
import * as Either from "effect/Either"

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/**
 * Checks a base URL: https anywhere, plain http only to a loopback host, because the
 * requests carry the API key and passphrase.
 */
export const validateBaseUrl = (input: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return Either.left(`base URL ${JSON.stringify(input)} is not a URL`)
  }
  if (url.protocol === "https:") return Either.right(url.origin + url.pathname.replace(/\/+$/, ""))
  if (url.protocol === "http:") {
    const loopback = loopbackHosts.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)
    return loopback
      ? Either.right(url.origin + url.pathname.replace(/\/+$/, ""))
      : Either.left(`base URL ${url.origin} uses plain http to a host that is not loopback; use https`)
  }
  return Either.left(`base URL ${url.origin} must use https (or http to a loopback host)`)
}
