/**
 * The v3 interface's answers: success is the payload itself (a funding page object, a spot
 * array, `{serverTime}`), with no envelope and no server stamp; failure is `{code, msg}` with a
 * negative integer code and an HTTP 4xx status.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { BillsApiError } from "../Errors.js"
import {
  decodeData,
  type EnvelopeInterpreter,
  otherVersionIssue,
  parseBody,
  retryAfterMillis,
  ServerTimeMillis,
  unreadable
} from "./envelope.js"
import { reasonOfV3 } from "./errorReason.js"
import { firstIssue } from "./parseIssue.js"
import { versionPaths } from "./protocol.js"

const Failure = Schema.Struct({
  code: Schema.Int,
  msg: Schema.optionalWith(Schema.String, { default: () => "" })
})
const decodeFailure = Schema.decodeUnknownEither(Failure)

const decodeServerTime = decodeData("serverTime", Schema.Struct({ serverTime: ServerTimeMillis }), "")
// The futures host's v3 market clock answers as the spot host's does, `{"serverTime": ms}`.
const decodeContractServerTime = decodeData("contractServerTime", Schema.Struct({ serverTime: ServerTimeMillis }), "")

/** The status text a failure without a readable body is reported with. */
const statusReason = (status: number) => reasonOfV3("", status)

/**
 * The v3 interpreter.
 */
export const envelopeV3: EnvelopeInterpreter = {
  ...versionPaths.v3,
  interpret: (operation, response, now) => {
    const retryAfter = retryAfterMillis(response.retryAfter, now)
    const body = parseBody(response.text)
    if (Either.isLeft(body)) {
      return unreadable(operation, response, retryAfter, firstIssue(body.left), statusReason, "Json")
    }
    const value = body.right
    // A payload never has a `code`: a funding page is {total, …, items}, spot a bare array.
    if (Predicate.isRecord(value) && "code" in value) {
      const failure = decodeFailure(value)
      if (Either.isLeft(failure)) {
        const issue = otherVersionIssue(response.text, "v3") ?? firstIssue(failure.left)
        return unreadable(operation, response, retryAfter, issue, statusReason, "Envelope")
      }
      const code = String(failure.right.code)
      return Either.left(
        new BillsApiError({
          operation,
          reason: reasonOfV3(code, response.status),
          code,
          msg: failure.right.msg,
          status: response.status,
          ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
        })
      )
    }
    if (response.status >= 200 && response.status < 300) {
      return Either.right({ data: value, requestTime: undefined, received: response.received })
    }
    return unreadable(
      operation,
      response,
      retryAfter,
      { path: "code", message: `HTTP ${response.status} without an error code` },
      statusReason,
      "Envelope"
    )
  },
  decode: (operation, schema) => decodeData(operation, schema, ""),
  serverTime: (answer) => Effect.map(decodeServerTime(answer), (time) => time.serverTime),
  contractServerTime: (answer) => Effect.map(decodeContractServerTime(answer), (time) => time.serverTime)
}
