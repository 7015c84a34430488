/**
 * One process drawing from the shared Redis budget, for the budget test:
 * `budgetChild.ts REDIS_URL ADDRESS LIMIT WINDOW_MS COUNT SEED`. Each granted "request" reads
 * Redis's clock (its arrival, on the budget's own clock) and lasts a seeded 0–15 ms; prints the
 * arrivals as one JSON array.
 */
import { Prng } from "@account-bills/core/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { Redis } from "ioredis"
import { AddressBudget } from "../../src/AddressBudget.js"

const [url = "", address = "", limit = "10", windowMs = "200", count = "30", seed = "1"] = process.argv.slice(2)
const clock = new Redis(url)
const random = Prng.make(Number(seed))

const program = Effect.gen(function* () {
  const budget = yield* AddressBudget
  const arrivals: Array<number> = []
  yield* Effect.forEach(
    Array.from({ length: Number(count) }, (_, i) => i),
    () =>
      budget.withGrant("spotBills")(
        Effect.gen(function* () {
          const [seconds, micros] = yield* Effect.promise(() => clock.time())
          arrivals.push(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000))
          yield* Effect.sleep(Duration.millis(Math.floor(random.next() * 15)))
        })
      ),
    { concurrency: 4, discard: true }
  )
  return arrivals
}).pipe(
  Effect.provide(
    AddressBudget.layerRedis(url, {
      limit: Number(limit),
      window: Duration.millis(Number(windowMs)),
      margin: 0,
      address
    })
  )
)

Effect.runPromise(program).then(
  (arrivals) => {
    process.stdout.write(`${JSON.stringify(arrivals)}\n`)
    return clock.quit()
  },
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
