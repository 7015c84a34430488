/**
 * The budget's rule after a loss of Redis's state, in one process, against real Redis servers:
 * - restarted empty: no grant on the address for a whole window, even to a process that has no
 *   grants of its own (another process's last grants still count at the exchange);
 * - the log lost while its state survives, seen through a dropped connection (a failover that
 *   lost the last writes): the process's own grants of the last window go back into the log and
 *   hold its next grant until they are a window old, and no longer (each at its age, not from
 *   the loss, and none of them as if still in flight).
 * Two `layerRedis` budgets stand for two processes (each its own client and its own grants).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { AddressBudgetShape } from "../src/index.js"
import { redisBudget, scopedAdmin } from "./support/redisBudget.js"
import { redisServerBin, scopedRedisServer } from "./support/redisServer.js"
import { redisUrl } from "./support/services.js"

const limit = 3
const windowMillis = 2_000

const budgetAt = (url: string, address: string) =>
  redisBudget(url, { limit, window: `${windowMillis} millis`, margin: 0, address })

/** `count` requests at once under `budget`'s grants; each one's start, epoch ms. */
const draw = (budget: AddressBudgetShape, count: number) =>
  Effect.all(
    Array.from({ length: count }, () => budget.withGrant("spotBills")(Effect.sync(() => Date.now()))),
    { concurrency: "unbounded" }
  )

describe.skipIf(redisServerBin === undefined)("the shared budget after Redis restarts empty", () => {
  it.live("no process is granted for a whole window, not even one with no grants of its own", () =>
    Effect.gen(function* () {
      const redis = yield* scopedRedisServer
      const address = `restart-${process.pid}`
      const first = yield* budgetAt(redis.url, address)
      const second = yield* budgetAt(redis.url, address)
      // Both know the state; the first takes the whole limit.
      yield* draw(second, 1)
      yield* Effect.sleep(`${windowMillis + 50} millis`)
      const oldest = Math.min(...(yield* draw(first, limit)))
      yield* redis.restart()
      const after = yield* draw(second, 1)
      // The limit's worth of grants before: the next one comes a window after the oldest of them.
      expect(Math.min(...after) - oldest).toBeGreaterThanOrEqual(windowMillis)
    }).pipe(Effect.scoped)
  )
})

describe.skipIf(redisUrl === undefined)("the shared budget after its log is lost and the connection drops", () => {
  it.live("the process's own grants of the last window go back into the log", () =>
    Effect.gen(function* () {
      const url = redisUrl ?? ""
      const address = `lost-${process.pid}-${Date.now()}`
      const budget = yield* budgetAt(url, address)
      yield* draw(budget, 1)
      yield* Effect.sleep(`${windowMillis + 50} millis`)
      const oldest = Math.min(...(yield* draw(budget, limit)))
      // Half a window later: put back at their age, they free the next grant half a window after
      // the loss; put back as if given at the loss, a whole window after it.
      yield* Effect.sleep(`${windowMillis / 2} millis`)
      // A failover that lost the log's last writes but kept its state, and dropped the budget's
      // connection on the way.
      const admin = yield* scopedAdmin(url)
      yield* Effect.promise(() => admin.del(`bills:budget:${address}:spotBills`))
      yield* Effect.promise(() => admin.client("KILL", "TYPE", "normal", "SKIPME", "yes"))
      // Bounded: a grant put back as if still in flight holds for `hold`, 30 s.
      const after = yield* draw(budget, 1).pipe(Effect.timeout(`${2 * windowMillis} millis`), Effect.orDie)
      // The limit's worth of grants before: the next one comes a window after the oldest of them,
      // and not much later.
      expect(Math.min(...after) - oldest).toBeGreaterThanOrEqual(windowMillis)
      expect(Math.min(...after) - oldest).toBeLessThanOrEqual(windowMillis + 700)
    }).pipe(Effect.scoped)
  )
})
