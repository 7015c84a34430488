/**
 * The v2 interface's answers: every body is an envelope `{code, msg, requestTime, data}`, read
 * whatever the HTTP status; code `"00000"` with a 2xx status is success.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { BillsApiError } from "../Errors.js"
import {
  decodeData,
  type EnvelopeInterpreter,
  otherVersionIssue,
  retryAfterMillis,
  ServerTimeMillis,
  unreadable
} from "./envelope.js"
import { reasonOf } from "./errorReason.js"
import { firstIssue } from "./parseIssue.js"
import { operationPath, serverTimePath, successCode } from "./protocol.js"

const Envelope = Schema.Struct({
  code: Schema.String,
  msg: Schema.optionalWith(Schema.String, { default: () => "" }),
  requestTime: Schema.optional(Schema.Number),
  data: Schema.optional(Schema.Unknown)
})

const decodeEnvelope = Schema.decodeEither(Schema.parseJson(Envelope))

const decodeServerTime = decodeData("serverTime", ServerTimeMillis)

/**
 * The v2 interpreter.
 */
export const envelopeV2: EnvelopeInterpreter = {
  operationPath,
  serverTimePath,
  interpret: (operation, response, now) => {
    const envelope = decodeEnvelope(response.text)
    const retryAfter = retryAfterMillis(response.retryAfter, now)
    if (Either.isLeft(envelope)) {
      const issue = otherVersionIssue(response.text, "v2") ?? firstIssue(envelope.left)
      return unreadable(operation, response, retryAfter, issue, (status) => reasonOf("", status))
    }
    const { code, data, msg, requestTime } = envelope.right
    if (code === successCode && response.status >= 200 && response.status < 300)
      return Either.right({ data, requestTime })
    return Either.left(
      new BillsApiError({
        operation,
        reason: reasonOf(code, response.status),
        code,
        msg,
        status: response.status,
        ...(requestTime === undefined ? {} : { requestTime }),
        ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
      })
    )
  },
  decode: (operation, schema) => decodeData(operation, schema),
  serverTime: (data) => decodeServerTime(data)
}
