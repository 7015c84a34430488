/**
 * One call to the exchange, composed: the interface version's interpreter, the send, the clock
 * repair, and the attempt repeated by the retry loop.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Schema from "effect/Schema"
import { type ApiVersion, BillsConfig } from "../BillsConfig.js"
import { BillsRateLimiter } from "../BillsRateLimiter.js"
import type { BillsDecodeError, BillsError } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import { Signer } from "../Signer.js"
import { makeAttempt, makeSend } from "./attempt.js"
import { makeClockSync } from "./clockSync.js"
import { ClockWaits } from "./clockWaits.js"
import type { Answer, CallName, EnvelopeInterpreter } from "./envelope.js"
import { envelopeV2 } from "./envelopeV2.js"
import { envelopeV3 } from "./envelopeV3.js"
import { retryExchangeCall } from "./retry.js"

/** The interpreter of each interface version; the pipeline asks nothing else about versions. */
const interpreters: Readonly<Record<ApiVersion, EnvelopeInterpreter>> = { v2: envelopeV2, v3: envelopeV3 }

/**
 * What the client's operations are built from.
 */
export interface ExchangeRequest {
  /** One operation call: attempts, each with a permit and a fresh signature, until one settles. */
  readonly request: (operation: OperationName, body: string) => Effect.Effect<Answer, BillsError>
  /** Measures the exchange's clock, sets the signer's offset to it, and returns the offset. */
  readonly syncClock: Effect.Effect<number, BillsError>
  /** The interface version the calls speak. */
  readonly version: ApiVersion
  /** Decodes an answer's payload with the operation's schema, naming fields as the version's wire does. */
  readonly decode: <A, I>(
    operation: CallName,
    schema: Schema.Schema<A, I>
  ) => (answer: Answer) => Effect.Effect<A, BillsDecodeError>
}

/**
 * Builds the calls with the layer's services.
 */
export const makeExchangeRequest: Effect.Effect<
  ExchangeRequest,
  never,
  HttpClient.HttpClient | Signer | BillsRateLimiter | BillsConfig
> = Effect.gen(function* () {
  const config = yield* BillsConfig
  const limiter = yield* BillsRateLimiter
  const signer = yield* Signer
  const wire = interpreters[config.apiVersion]
  // No traceparent headers: trace ids of the user's system are none of the exchange's business.
  const client = HttpClient.withTracerPropagation(yield* HttpClient.HttpClient, false)
  const waits = yield* ClockWaits
  const send = makeSend(client, config, wire)
  const spotClock = yield* makeClockSync({
    send,
    config,
    waits,
    call: "serverTime",
    url: config.baseUrl + wire.serverTimePath,
    read: wire.serverTime,
    setOffset: signer.setClockOffset
  })
  // The futures host on another origin keeps its own clock: a request there is timed against it,
  // and a timestamp refusal there measures it, not the spot host's. Until it is measured the
  // spot host's offset stands in (one exchange's hosts usually agree).
  const ownContractClock = new URL(config.contractBaseUrl).origin !== new URL(config.baseUrl).origin
  const contractOffset = yield* Ref.make<number | undefined>(undefined)
  const contractClock = ownContractClock
    ? yield* makeClockSync({
        send,
        config,
        waits,
        call: "contractServerTime",
        url: config.contractBaseUrl + wire.contractServerTimePath,
        read: wire.contractServerTime,
        setOffset: (millis) => Ref.set(contractOffset, Math.round(millis))
      })
    : spotClock
  const attempt = makeAttempt({
    send,
    signer,
    limiter,
    config,
    wire,
    ...(ownContractClock ? { contractClockOffset: Ref.get(contractOffset) } : {})
  })
  return {
    request: (operation, body) =>
      retryExchangeCall(attempt(operation, body), config, {
        clock: operation === "contractBills" ? contractClock.repair : spotClock.repair,
        waits
      }),
    // Both hosts' clocks when they are two; the spot host's offset is the one returned.
    syncClock: ownContractClock
      ? Effect.zipLeft(spotClock.syncClock, contractClock.syncClock, { concurrent: true })
      : spotClock.syncClock,
    version: config.apiVersion,
    decode: wire.decode
  }
})
