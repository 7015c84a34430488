/**
 * Which exchange account a store's rows belong to: a fingerprint of the API key (never the
 * key itself) and an optional label, so one store can keep several accounts.
 *
 * @since 0.1.0
 */
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js"
import * as Redacted from "effect/Redacted"

/**
 * An account as the store knows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreAccount {
  /** HMAC-SHA256 of the API key under a fixed, public key: the same key gives the same fingerprint. */
  readonly fingerprint: string
  /** A name the user chose; when absent, the account is known by its fingerprint. */
  readonly label: string | undefined
  /** The key of the account's rows: the label when there is one, else `key:` and the fingerprint's head. */
  readonly id: string
}

// A fixed key turns the hash into a store-specific fingerprint: it matches no other system's hash of the key.
const fingerprintKey = utf8ToBytes("account-bills/store account fingerprint v1")

/**
 * The fingerprint of an API key.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fingerprint = (apiKey: Redacted.Redacted<string>): string =>
  bytesToHex(hmac(sha256, fingerprintKey, utf8ToBytes(Redacted.value(apiKey))))

/**
 * The account of an API key, with an optional label.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (apiKey: Redacted.Redacted<string>, label?: string | undefined): StoreAccount => {
  const print = fingerprint(apiKey)
  return { fingerprint: print, label, id: label ?? `key:${print.slice(0, 16)}` }
}
