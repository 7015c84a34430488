/**
 * `AddressBudget.layerMemory` on a runner that spreads its accounts over several local
 * addresses without Redis (`--local-address a,b --ip-rps N`): each address has a budget of its
 * own, so two addresses grant twice what one does in a window, and one address's queue never
 * holds up another's; a grant that names no address draws from the budget's own `address`; the
 * margin adds to the window. Under the TestClock: who was granted when is exact.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { AddressBudget } from "../src/index.js"

const limit = 3

describe("AddressBudget.layerMemory", () => {
  it.effect("several addresses: one budget each, every address granted its whole limit at once", () =>
    Effect.gen(function* () {
      const budget = yield* AddressBudget
      const grants: Array<readonly [string, number]> = []
      const request = (address: string) =>
        budget.withGrant(
          "spotBills",
          address
        )(Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => grants.push([address, at]))))
      // One more than the limit on each address: the last of each waits for its own window.
      const addresses = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
      const all = yield* Effect.fork(
        Effect.all(
          addresses.flatMap((address) => Array.from({ length: limit + 1 }, () => request(address))),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(all)
      for (const address of addresses) {
        const times = grants.filter(([granted]) => granted === address).map(([, at]) => at)
        expect(
          times.filter((at) => at === 0),
          address
        ).toHaveLength(limit)
        expect(
          times.filter((at) => at >= 1_000),
          address
        ).toHaveLength(1)
      }
      // The default address is one more of its own.
      const fallback = yield* Effect.fork(
        Effect.all(
          Array.from({ length: limit }, () =>
            budget.withGrant("spotBills")(Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.succeed(at)))
          ),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fallback)).toEqual(Array.from({ length: limit }, () => 5_000))
    }).pipe(Effect.provide(AddressBudget.layerMemory({ limit, window: "1 second", margin: 0 })))
  )

  it.effect("a grant that names no address draws from the budget's own address, one window plus margin apart", () =>
    Effect.gen(function* () {
      const budget = yield* AddressBudget
      const at = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.succeed(now))
      const both = yield* Effect.fork(
        Effect.all([budget.withGrant("spotBills")(at), budget.withGrant("spotBills", "10.0.0.9")(at)], {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(both)).toEqual([0, 1_100])
    }).pipe(
      Effect.provide(
        AddressBudget.layerMemory({ limit: 1, window: "1 second", margin: "100 millis", address: "10.0.0.9" })
      )
    )
  )
})
