/**
 * The far rows' exchange in a process of its own (`bench/farTrace.ts --apart`, `--apart` rows of
 * `pnpm bench --only contract`), as the judges run it: started with the row's history and round
 * trip as JSON in argv, it sends its URL to the parent over IPC, answers "log" with its request
 * log and stats, and exits when the parent disconnects.
 */
import type { BillKind } from "@account-bills/core"
import { operationOf } from "@account-bills/core"
import { FakeExchangeServer } from "@account-bills/node"
import * as Effect from "effect/Effect"
import { credentials } from "./client.js"
import { farHistory } from "./farExchange.js"

/** What the parent passes in argv. */
export interface FarServerOptions {
  readonly apiVersion: "v2" | "v3"
  readonly account: BillKind
  readonly count: number
  readonly end: number
  readonly roundTripMillis: number
}

/** One logged request of the row's operation, as sent to the parent. */
export interface FarServerRequest {
  readonly arrivalMillis: number
  readonly body: string
  readonly timestamp: string | undefined
}

/** The answer to "log". */
export interface FarServerLog {
  readonly requests: ReadonlyArray<FarServerRequest>
  readonly rateLimited: number
}

const options = JSON.parse(process.argv[2] ?? "{}") as FarServerOptions
const send = (message: unknown) => process.send?.(message)

Effect.gen(function* () {
  const server = yield* FakeExchangeServer.make({
    apiVersion: options.apiVersion,
    ...farHistory(options.account, options.count, options.end, options.roundTripMillis),
    rateLimit: { limit: 10, windowMillis: 1000 },
    credentials
  })
  const operation = operationOf[options.account]
  const log = Effect.gen(function* () {
    const requests = (yield* server.exchange.requests)
      .filter((request) => request.operation === operation)
      .map(({ arrivalMillis, body, timestamp }) => ({ arrivalMillis, body, timestamp }))
    const stats = yield* server.exchange.stats
    return { requests, rateLimited: stats[operation].rateLimited } satisfies FarServerLog
  })
  const answer = (message: unknown) => {
    if (message === "log") Effect.runPromise(log).then(send)
  }
  process.on("message", answer)
  send({ url: server.url })
  yield* Effect.async<void>((resume) => {
    process.once("disconnect", () => resume(Effect.void))
  })
}).pipe(Effect.scoped, Effect.runPromise)
