/**
 * The v2 interface's answers. The spot host's are envelopes `{code, msg, requestTime, data}`,
 * read whatever the HTTP status; code `"00000"` with a 2xx status is success. The futures host's
 * v2 bills answer is bare, as the docs' sample shows it (`{"hasNextPage": true, "items": [...]}`,
 * no code, msg or stamp): a 2xx body without a `code` is the payload there, and a body with one is
 * read as an envelope or a failure, whichever form (string or number code) it takes.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { BillsApiError } from "../Errors.js"
import {
  type Answer,
  type CallName,
  decodeData,
  type EnvelopeInterpreter,
  otherVersionIssue,
  parseBody,
  type RawResponse,
  retryAfterMillis,
  ServerTimeMillis,
  unreadable
} from "./envelope.js"
import { reasonOf, reasonOfV3 } from "./errorReason.js"
import { firstIssue } from "./parseIssue.js"
import { successCode, versionPaths } from "./protocol.js"

const Envelope = Schema.Struct({
  code: Schema.String,
  msg: Schema.optionalWith(Schema.String, { default: () => "" }),
  requestTime: Schema.optional(Schema.Number),
  data: Schema.optional(Schema.Unknown)
})
const decodeEnvelope = Schema.decodeUnknownEither(Envelope)

/** A futures-host body with a code: the envelope, or a failure whose code may be a number. */
const CodedBody = Schema.Struct({
  code: Schema.Union(Schema.String, Schema.Int),
  msg: Schema.optionalWith(Schema.String, { default: () => "" }),
  requestTime: Schema.optional(Schema.Number),
  data: Schema.optional(Schema.Unknown)
})
const decodeCoded = Schema.decodeUnknownEither(CodedBody)

const decodeServerTime = decodeData("serverTime", ServerTimeMillis)

// The futures host's market clock answers bare, `{"epoch": "…", "iso": "…", "timestamp": ms}`
// (its docs; clients in public repositories read `timestamp`); an envelope around the number is
// read too, since the host answers either form.
const decodeContractServerTime = decodeData(
  "contractServerTime",
  Schema.Union(
    ServerTimeMillis,
    Schema.transform(Schema.Struct({ timestamp: ServerTimeMillis }), Schema.Number, {
      strict: true,
      decode: (time) => time.timestamp,
      encode: (timestamp) => ({ timestamp })
    })
  ),
  ""
)

/** Whether a call goes to the futures host, whose answers take its own forms. */
const futuresHost = (operation: CallName) => operation === "contractBills" || operation === "contractServerTime"

const spotStatusReason = (status: number) => reasonOf("", status)

/** A failure of a code and a message, with the stamp and wait the answer gave. */
const failure = (
  operation: CallName,
  response: RawResponse,
  code: string,
  msg: string,
  reason: BillsApiError["reason"],
  requestTime: number | undefined,
  retryAfter: number | undefined
) =>
  Either.left(
    new BillsApiError({
      operation,
      reason,
      code,
      msg,
      status: response.status,
      ...(requestTime === undefined ? {} : { requestTime }),
      ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
    })
  )

const isSuccess = (response: RawResponse) => response.status >= 200 && response.status < 300

/** The spot host's envelope. */
const interpretEnvelope = (
  response: RawResponse,
  value: unknown,
  operation: CallName,
  retryAfter: number | undefined
) => {
  const envelope = decodeEnvelope(value)
  if (Either.isLeft(envelope)) {
    const issue = otherVersionIssue(response.text, "v2") ?? firstIssue(envelope.left)
    return unreadable(operation, response, retryAfter, issue, spotStatusReason, "Envelope")
  }
  const { code, data, msg, requestTime } = envelope.right
  if (code === successCode && isSuccess(response)) {
    return Either.right<Answer>({ data, requestTime, received: response.received })
  }
  return failure(operation, response, code, msg, reasonOf(code, response.status), requestTime, retryAfter)
}

/** The futures host's answer: bare on success, an envelope or a failure when it has a code. */
const interpretFutures = (
  response: RawResponse,
  value: unknown,
  operation: CallName,
  retryAfter: number | undefined
) => {
  if (!Predicate.isRecord(value) || !("code" in value)) {
    if (isSuccess(response))
      return Either.right<Answer>({ data: value, requestTime: undefined, received: response.received })
    return unreadable(
      operation,
      response,
      retryAfter,
      { path: "code", message: `HTTP ${response.status} without an error code` },
      spotStatusReason,
      "Envelope"
    )
  }
  const coded = decodeCoded(value)
  if (Either.isLeft(coded))
    return unreadable(operation, response, retryAfter, firstIssue(coded.left), spotStatusReason, "Envelope")
  const { data, msg, requestTime } = coded.right
  const code = String(coded.right.code)
  if (code === successCode && isSuccess(response)) {
    return Either.right<Answer>({ data, requestTime, received: response.received })
  }
  // A negative number is a code of the v3 table; the gateway answers either form on one host.
  const reason =
    typeof coded.right.code === "number" && coded.right.code < 0
      ? reasonOfV3(code, response.status)
      : reasonOf(code, response.status)
  return failure(operation, response, code, msg, reason, requestTime, retryAfter)
}

/**
 * The v2 interpreter.
 */
export const envelopeV2: EnvelopeInterpreter = {
  ...versionPaths.v2,
  interpret: (operation, response, now) => {
    const retryAfter = retryAfterMillis(response.retryAfter, now)
    const body = parseBody(response.text)
    if (Either.isLeft(body)) {
      return unreadable(operation, response, retryAfter, firstIssue(body.left), spotStatusReason, "Json")
    }
    return futuresHost(operation)
      ? interpretFutures(response, body.right, operation, retryAfter)
      : interpretEnvelope(response, body.right, operation, retryAfter)
  },
  // The futures answer is the body itself: its fields are named from the top.
  decode: (operation, schema) => decodeData(operation, schema, futuresHost(operation) ? "" : "data"),
  serverTime: (answer) => decodeServerTime(answer),
  contractServerTime: (answer) => decodeContractServerTime(answer)
}
