/**
 * The local exchange of the benchmark with the data set and the limit lifted, in a process of
 * its own so that neither its CPU time nor its memory mixes with the client's. Prints one JSON
 * line with its URL and then serves until stdin closes (the orchestrator ends) or it is
 * signalled.
 *
 *   node --import tsx bench/server.ts
 */
import { FakeExchangeServer } from "@account-bills/node"
import * as Effect from "effect/Effect"
import { lazyExchange } from "./common.js"

const program = Effect.gen(function* () {
  const unlimited = yield* FakeExchangeServer.make(lazyExchange)
  console.log(JSON.stringify({ url: unlimited.url }))
  yield* Effect.async<void>((resume) => {
    process.stdin.on("end", () => resume(Effect.void))
    process.stdin.on("close", () => resume(Effect.void))
    process.once("SIGTERM", () => resume(Effect.void))
    process.stdin.resume()
  })
}).pipe(Effect.scoped)

await Effect.runPromise(program)
