/**
 * The `WEEX_*` environment variables as a person needs them explained: for the help of `bills`,
 * and for the message when a required one is missing (the `Config.redacted` reading them
 * redacts its own "missing" message too, which then says only `<redacted>`).
 */
import type * as Arr from "effect/Array"
import * as ConfigError from "effect/ConfigError"

/** @internal */
export interface Variable {
  readonly name: string
  readonly meaning: string
  /** The value used when it is not set; required when absent. */
  readonly fallback?: string
}

/** @internal */
export const variables: Arr.NonEmptyReadonlyArray<Variable> = [
  { name: "WEEX_API_KEY", meaning: "the API key of your WEEX account (read permission is enough)" },
  { name: "WEEX_API_SECRET", meaning: "the secret of that API key" },
  { name: "WEEX_API_PASSPHRASE", meaning: "the passphrase chosen when the API key was made" },
  {
    name: "WEEX_BASE_URL",
    meaning: "origin of the exchange; https, or plain http to a loopback host only",
    fallback: "https://api-spot.weex.com"
  },
  { name: "WEEX_LOCALE", meaning: "the locale header", fallback: "en-US" },
  { name: "WEEX_API_VERSION", meaning: "the exchange's interface version: v2 or v3", fallback: "v2" }
]

const meaningOf = (path: ReadonlyArray<string>): string | undefined =>
  variables.find((variable) => path.length === 1 && variable.name === path[0])?.meaning

/**
 * The same error, with each missing variable we know saying what it is.
 *
 * @internal
 */
export const explainMissing = (error: ConfigError.ConfigError): ConfigError.ConfigError => {
  switch (error._op) {
    case "And":
      return ConfigError.And(explainMissing(error.left), explainMissing(error.right))
    case "Or":
      return ConfigError.Or(explainMissing(error.left), explainMissing(error.right))
    case "MissingData": {
      const meaning = meaningOf(error.path)
      return meaning === undefined ? error : ConfigError.MissingData(error.path, `${meaning} is not set`)
    }
    default:
      return error
  }
}

/**
 * One line for a person: each missing variable named with what it is, other problems as they
 * read.
 *
 * @internal
 */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const parts: Array<string> = []
  const walk = (node: ConfigError.ConfigError): void => {
    switch (node._op) {
      case "And":
        walk(node.left)
        walk(node.right)
        return
      case "Or":
        walk(node.left)
        return
      case "MissingData": {
        const name = node.path.join(".")
        const meaning = meaningOf(node.path)
        parts.push(meaning === undefined ? `${name} is not set` : `${name} is not set: ${meaning}`)
        return
      }
      default: {
        const name = node.path.join(".")
        parts.push(name === "" ? node.message : `${name}: ${node.message}`)
      }
    }
  }
  walk(error)
  return [...new Set(parts)].join("; ")
}
