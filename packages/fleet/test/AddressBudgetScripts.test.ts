/**
 * The budget's scripts go to Redis by digest (EVALSHA), their text only when Redis has not cached
 * them: sent with every grant and release, the text was the runner's largest single write (issue
 * 38, section 3). Counted by Redis itself (`INFO commandstats`) on a server of the test's own;
 * a Redis that dropped its scripts (`SCRIPT FLUSH`, as a restart does) is sent the text again and
 * grants on.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Redis } from "ioredis"
import { AddressBudget, type AddressBudgetShape } from "../src/index.js"
import { commandCalls } from "./support/redisBudget.js"
import { redisServerBin, scopedRedisServer } from "./support/redisServer.js"

// The last release goes alone a few milliseconds after its request (AddressBudgetReleases.test.ts).
const draw = (budget: AddressBudgetShape, count: number) =>
  Effect.zipRight(
    Effect.forEach(Array.from({ length: count }), () => budget.withGrant("spotBills")(Effect.void), { discard: true }),
    Effect.sleep("200 millis")
  )

describe.skipIf(redisServerBin === undefined)("the budget's scripts", () => {
  it.live("go by digest; the text only to a Redis that has not cached it", () =>
    Effect.gen(function* () {
      const server = yield* scopedRedisServer
      const admin = yield* Effect.acquireRelease(
        Effect.sync(() => new Redis(server.url)),
        (client) => Effect.promise(() => client.quit())
      )
      const budget = yield* Layer.build(
        Layer.orDie(AddressBudget.layerRedis(server.url, { limit: 1000, address: `scripts-${process.pid}` }))
      ).pipe(Effect.map((context) => context.unsafeMap.get(AddressBudget.key) as AddressBudgetShape))
      yield* draw(budget, 20)
      const first = yield* commandCalls(admin)
      // 20 grants by digest (the releases riding with them, the last alone); the text once per
      // script, when Redis first lacks it.
      expect(first.get("evalsha")).toBeGreaterThanOrEqual(20)
      expect(first.get("eval") ?? 0).toBe(2)
      yield* Effect.promise(() => admin.script("FLUSH"))
      yield* draw(budget, 20)
      const second = yield* commandCalls(admin)
      expect((second.get("evalsha") ?? 0) - (first.get("evalsha") ?? 0)).toBeGreaterThanOrEqual(20)
      expect((second.get("eval") ?? 0) - (first.get("eval") ?? 0)).toBe(2)
    }).pipe(Effect.scoped)
  )
})
