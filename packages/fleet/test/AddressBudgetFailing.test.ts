/**
 * A Redis that answers every grant call with an error (here the log key turned into a string:
 * `WRONGTYPE`) on a live connection: the grant is asked again, never bypassed, at most about
 * once a second after the first few tries, each failure said in a warning, and it is granted
 * once the error is gone.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import { recordedGrantCalls } from "./support/grantCalls.js"
import { redisBudget, scopedAdmin } from "./support/redisBudget.js"
import { redisUrl } from "./support/services.js"

describe.skipIf(redisUrl === undefined)("the shared budget when Redis answers with errors", () => {
  it.live("asks again at a bounded pace, warns of each failure, and grants once Redis answers", () =>
    Effect.gen(function* () {
      const calls = yield* recordedGrantCalls
      const address = `failing-${process.pid}-${Date.now()}`
      const key = `bills:budget:${address}:spotBills`
      const budget = yield* redisBudget(redisUrl ?? "", { limit: 1, window: "100 millis", address })
      yield* budget.withGrant("spotBills")(Effect.void)
      const admin = yield* scopedAdmin(redisUrl ?? "")
      yield* Effect.promise(() => admin.set(key, "not a log"))
      const warnings: Array<string> = []
      const before = calls.made.get(key) ?? 0
      let sent = false
      const grant = yield* Effect.fork(
        budget
          .withGrant("spotBills")(Effect.sync(() => (sent = true)))
          .pipe(
            Effect.provide(
              Logger.replace(
                Logger.defaultLogger,
                Logger.make(({ message }) => void warnings.push(String(message)))
              )
            )
          )
      )
      yield* Effect.sleep("2500 millis")
      const failed = (calls.made.get(key) ?? 0) - before
      expect(sent).toBe(false)
      yield* Effect.promise(() => admin.del(key))
      yield* Fiber.join(grant).pipe(Effect.timeout("3 seconds"), Effect.orDie)
      expect(sent).toBe(true)
      // Backing off 50, 100, 200, 400, 800 ms, then every second: about 7 calls in 2.5 s.
      expect(failed).toBeGreaterThanOrEqual(3)
      expect(failed).toBeLessThanOrEqual(12)
      expect(warnings.filter((line) => line.includes("WRONGTYPE")).length).toBeGreaterThanOrEqual(3)
    }).pipe(Effect.scoped)
  )
})
