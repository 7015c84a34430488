/**
 * Clock repair: measuring the exchange's clock through the version's time endpoint and handing
 * the offset to the signer, one measurement at a time.
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { BillsConfigShape } from "../BillsConfig.js"
import type { BillsError } from "../Errors.js"
import type { SignerShape } from "../Signer.js"
import type { Send } from "./attempt.js"
import type { ClockWaitsShape } from "./clockWaits.js"
import type { EnvelopeInterpreter } from "./envelope.js"
import { type ClockRepair, retryExchangeCall } from "./retry.js"

/**
 * What the client gets: `syncClock` for users, `repair` for the retry loop.
 */
export interface ClockSync {
  /** Measures the exchange's clock, sets the signer's offset to it, and returns the offset. */
  readonly syncClock: Effect.Effect<number, BillsError>
  readonly repair: ClockRepair
}

/**
 * Builds the clock repair over `send`.
 */
export const makeClockSync = (options: {
  readonly send: Send
  readonly signer: SignerShape
  readonly config: BillsConfigShape
  readonly wire: EnvelopeInterpreter
  readonly waits: ClockWaitsShape
}): Effect.Effect<ClockSync> =>
  Effect.gen(function* () {
    const { config, send, signer, waits, wire } = options
    // The time endpoint is public and unsigned, and it is not one of the rate-limited operations.
    const measureOffset = Effect.gen(function* () {
      const before = yield* Clock.currentTimeMillis
      const answer = yield* send("serverTime", HttpClientRequest.get(config.baseUrl + wire.serverTimePath))
      const after = yield* Clock.currentTimeMillis
      const serverTime = yield* wire.serverTime(answer)
      // The server read its clock somewhere in the round trip; the midpoint halves the error.
      return Math.round(serverTime - (before + after) / 2)
    }).pipe(waits.around({ _tag: "ClockSync" }))

    // One measurement at a time; the generation lets fibers rejected together share one.
    const syncLock = yield* Effect.makeSemaphore(1)
    const generation = yield* Ref.make(0)
    const measureAndSet = retryExchangeCall(() => measureOffset, config, { waits }).pipe(
      Effect.tap((offset) => signer.setClockOffset(offset)),
      Effect.tap(() => Ref.update(generation, (n) => n + 1))
    )
    return {
      syncClock: syncLock.withPermits(1)(measureAndSet).pipe(Effect.withSpan("BillsApi.syncClock")),
      repair: {
        generation: Ref.get(generation),
        resyncSince: (seen) =>
          syncLock.withPermits(1)(
            Effect.flatMap(Ref.get(generation), (current) =>
              current === seen ? Effect.asVoid(measureAndSet) : Effect.void
            )
          )
      }
    }
  })
