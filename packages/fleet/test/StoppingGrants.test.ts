/**
 * A runner that stops sends nothing more: a pass waiting for its grant when the stop comes never
 * sends, and waits for the cluster to end it; a request already sent lands and gives its answer.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type { AddressBudgetShape } from "../src/AddressBudget.js"
import * as Stopping from "../src/internal/stopping.js"

/** A budget whose grant is given when `grant` opens, counting the grants it gave. */
const gated = (grant: Effect.Effect<void>) => {
  let given = 0
  const withGrant: AddressBudgetShape["withGrant"] = () => (request) =>
    Effect.zipRight(
      Effect.tap(grant, () => {
        given++
      }),
      request
    )
  return { withGrant, given: () => given }
}

describe("a runner that stops", () => {
  it.effect("gives no grant to a pass still waiting for one: its request is never sent, and it waits to be ended", () =>
    Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      const open = yield* Deferred.make<void>()
      const budget = gated(Deferred.await(open))
      let sent = 0
      const request = Effect.sync(() => ++sent)
      const pass = yield* Effect.fork(Stopping.withGrantUntil(stop, budget.withGrant)("spotBills")(request))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(stop, undefined)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      // The grant that comes now is given to no one.
      yield* Deferred.succeed(open, undefined)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      expect(sent).toBe(0)
      expect(budget.given()).toBe(0)
      expect(Option.isNone(yield* Fiber.poll(pass))).toBe(true)
      // And a pass that asks once the runner has stopped gets none either.
      const late = yield* Effect.fork(Stopping.withGrantUntil(stop, budget.withGrant)("spotBills")(request))
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      expect(sent).toBe(0)
      expect(Option.isNone(yield* Fiber.poll(late))).toBe(true)
      yield* Fiber.interrupt(pass)
      yield* Fiber.interrupt(late)
    })
  )

  it.effect("lets a request already sent land, and gives its answer", () =>
    Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<string>()
      const budget = gated(Effect.void)
      let sent = 0
      const request = Effect.zipRight(
        Effect.sync(() => ++sent),
        Deferred.await(answer)
      )
      const pass = yield* Effect.fork(Stopping.withGrantUntil(stop, budget.withGrant)("spotBills")(request))
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      expect(sent).toBe(1)
      yield* Deferred.succeed(stop, undefined)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      yield* Deferred.succeed(answer, "page")
      expect(yield* Fiber.join(pass)).toBe("page")
    })
  )

  it.effect("before the stop, a pass gets its grants and answers as if nothing were there", () =>
    Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      const budget = gated(Effect.void)
      const answers = yield* Effect.forEach([1, 2, 3], (n) =>
        Stopping.withGrantUntil(stop, budget.withGrant)("fundingBills")(Effect.succeed(n))
      )
      expect(answers).toEqual([1, 2, 3])
      expect(budget.given()).toBe(3)
    })
  )
})
