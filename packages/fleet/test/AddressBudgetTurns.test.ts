/**
 * Two processes on one address taking turns, against a real Redis that never loses its log:
 * each grant comes within about a window of its request (never later: no grant of the past is
 * put back as if it were in flight), and no grant call is answered "ask again with your own
 * grants" (that answer means a loss of the log, and costs a second call). Two `layerRedis`
 * budgets stand for two processes; every grant call of both is recorded on the Redis client.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { AddressBudgetShape } from "../src/index.js"
import { recordedGrantCalls } from "./support/grantCalls.js"
import { redisBudget } from "./support/redisBudget.js"
import { redisUrl } from "./support/services.js"

const windowMillis = 1_000
/** How late past its due a grant may come on a busy machine; a grant put back in flight waits `hold`, 30 s. */
const slack = 700

/** One request under `budget`'s grant: when it was asked for and when it was granted, epoch ms. */
const turn = (budget: AddressBudgetShape) =>
  Effect.gen(function* () {
    const asked = Date.now()
    const granted = yield* budget.withGrant("spotBills")(Effect.sync(() => Date.now()))
    return { asked, granted }
  }).pipe(Effect.timeout(`${windowMillis + 5 * slack} millis`), Effect.orDie)

describe.skipIf(redisUrl === undefined)("two processes on one address taking turns", () => {
  it.live("each grant within a window of its request, and no call asked again with own grants", () =>
    Effect.gen(function* () {
      const calls = yield* recordedGrantCalls
      const address = `turns-${process.pid}-${Date.now()}`
      const options = { limit: 1, window: `${windowMillis} millis`, address } as const
      const a = yield* redisBudget(redisUrl ?? "", options)
      const b = yield* redisBudget(redisUrl ?? "", options)
      // The first grant on the address makes its state and waits out its quiet window; the
      // second process's first grant waits for the first one's (limit 1).
      const first = yield* turn(a)
      const second = yield* turn(b)
      // Turns more than a window apart: b's call clears a's grant from the log, and a's next
      // grant must not look for it there.
      yield* Effect.sleep(`${windowMillis + 200} millis`)
      const third = yield* turn(b)
      const fourth = yield* turn(a)
      const turns = [first, second, third, fourth]
      for (const [i, { asked, granted }] of turns.entries()) {
        expect(granted - asked, `turn ${i + 1}`).toBeLessThanOrEqual(windowMillis + slack)
      }
      // Waited for: the quiet window, a's grant, b's grant.
      expect(first.granted - first.asked).toBeGreaterThanOrEqual(windowMillis)
      expect(second.granted - first.granted).toBeGreaterThanOrEqual(windowMillis)
      expect(fourth.granted - third.granted).toBeGreaterThanOrEqual(windowMillis)
      const statuses = calls.statuses.get(`bills:budget:${address}:spotBills`) ?? []
      expect(statuses.filter((status) => status === 1)).toHaveLength(4)
      expect(statuses).not.toContain(2)
    }).pipe(Effect.scoped)
  )
})
