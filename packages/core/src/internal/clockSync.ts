/**
 * Clock repair: measuring an exchange host's clock through its time endpoint and keeping the
 * offset, one measurement at a time. The spot host's offset is the signer's; the futures host,
 * when it is another host, keeps its own (its requests are timed against its clock).
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { BillsConfigShape } from "../BillsConfig.js"
import type { BillsDecodeError, BillsError } from "../Errors.js"
import type { Send } from "./attempt.js"
import type { ClockWaitsShape } from "./clockWaits.js"
import type { Answer, CallName } from "./envelope.js"
import { type ClockRepair, retryExchangeCall } from "./retry.js"

/**
 * What the client gets: `syncClock` for users, `repair` for the retry loop.
 */
export interface ClockSync {
  /** Measures the host's clock, keeps the offset to it, and returns the offset. */
  readonly syncClock: Effect.Effect<number, BillsError>
  readonly repair: ClockRepair
}

/**
 * Builds the clock repair of one host over `send`: `url` is its time endpoint, `read` its
 * answer's reader, `setOffset` where the offset goes.
 */
export const makeClockSync = (options: {
  readonly send: Send
  readonly config: BillsConfigShape
  readonly waits: ClockWaitsShape
  readonly call: Extract<CallName, "serverTime" | "contractServerTime">
  readonly url: string
  readonly read: (answer: Answer) => Effect.Effect<number, BillsDecodeError>
  readonly setOffset: (millis: number) => Effect.Effect<void>
}): Effect.Effect<ClockSync> =>
  Effect.gen(function* () {
    const { call, config, read, send, setOffset, url, waits } = options
    // The time endpoint is public and unsigned, and it is not one of the rate-limited operations.
    const measureOffset = Effect.gen(function* () {
      const before = yield* Clock.currentTimeMillis
      const answer = yield* send(call, HttpClientRequest.get(url))
      const after = yield* Clock.currentTimeMillis
      const serverTime = yield* read(answer)
      // The server read its clock somewhere in the round trip; the midpoint halves the error.
      return Math.round(serverTime - (before + after) / 2)
    }).pipe(waits.around({ _tag: "ClockSync" }))

    // One measurement at a time; the generation lets fibers rejected together share one.
    const syncLock = yield* Effect.makeSemaphore(1)
    const generation = yield* Ref.make(0)
    const measureAndSet = retryExchangeCall(() => measureOffset, config, { waits }).pipe(
      Effect.tap((offset) => setOffset(offset)),
      Effect.tap(() => Ref.update(generation, (n) => n + 1))
    )
    return {
      syncClock: syncLock
        .withPermits(1)(measureAndSet)
        .pipe(Effect.withSpan("BillsApi.syncClock", { attributes: { call } })),
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
