/**
 * `AddressBudget.layerRedis` asks Redis for one address's grants one waiter at a time per
 * process: the others queue in the process (hundreds of waiting passes each asking Redis every
 * few milliseconds took the runners' CPU). Counted on the Redis client itself: never two grant
 * calls for one address and operation in flight at once, while two addresses are asked side by side.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AddressBudget } from "../src/index.js"
import { recordedGrantCalls } from "./support/grantCalls.js"
import { redisUrl } from "./support/services.js"

describe.skipIf(redisUrl === undefined)("AddressBudget.layerRedis in one process", () => {
  it.live("many waiters on two addresses: at most one grant call in flight per address and operation", () =>
    Effect.gen(function* () {
      const counted = yield* recordedGrantCalls
      const prefix = `queue-${process.pid}-${Date.now()}`
      const addresses = [`${prefix}-a`, `${prefix}-b`]
      yield* Effect.gen(function* () {
        const budget = yield* AddressBudget
        yield* Effect.all(
          addresses.flatMap((address) =>
            Array.from({ length: 24 }, () => budget.withGrant("spotBills", address)(Effect.sleep("2 millis")))
          ),
          { concurrency: "unbounded" }
        )
      }).pipe(Effect.provide(Layer.orDie(AddressBudget.layerRedis(redisUrl ?? "", { limit: 4, window: "100 millis" }))))
      expect([...counted.most.keys()].sort()).toEqual(addresses.map((address) => `bills:budget:${address}:spotBills`))
      expect([...counted.most.values()]).toEqual([1, 1])
      // The queue is per address: the two addresses were asked side by side.
      expect(counted.mostKeys()).toBe(2)
    }).pipe(Effect.scoped)
  )
})
