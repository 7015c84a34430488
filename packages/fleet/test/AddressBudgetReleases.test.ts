/**
 * A finished request's release rides with the next grant of its log from the same process, or
 * goes a few milliseconds later together with the log's other releases (issue 38, section 3,
 * seventh round): a request was two round trips to Redis, its grant and its release, and the release
 * forked two fibers for its deadline. Counted by Redis itself (`INFO commandstats`) on a server
 * of the test's own, and by a `Supervisor`; what a release does is checked in the log: every
 * entry sits where its request finished, none left counting as in flight.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Redis } from "ioredis"
import { commandCalls, redisBudget, scopedAdmin } from "./support/redisBudget.js"
import { redisServerBin, scopedRedisServer } from "./support/redisServer.js"
import { Forks } from "./support/runtimeWork.js"

/** Calls of the budget's scripts Redis has run, by digest and by text. */
const scriptCalls = (redis: Redis) =>
  Effect.map(commandCalls(redis), (calls) => (calls.get("evalsha") ?? 0) + (calls.get("eval") ?? 0))

describe.skipIf(redisServerBin === undefined)("the budget's releases", () => {
  it.live("ride with the next grant of their log, or go together a few milliseconds later", () =>
    Effect.gen(function* () {
      const server = yield* scopedRedisServer
      const admin = yield* scopedAdmin(server.url)
      const budget = yield* redisBudget(server.url, { limit: 1000, address: `releases-${process.pid}` })
      // The first grant on a new log waits out a quiet window (the restart rule), asking again and
      // again: drawn before the count, with the scripts cached by then.
      yield* budget.withGrant("spotBills")(Effect.void)
      yield* Effect.sleep("200 millis")
      const before = yield* scriptCalls(admin)
      const forks = new Forks()
      // 20 requests one after another, as a walk's pages go.
      for (let i = 0; i < 20; i++) {
        yield* Effect.supervised(budget.withGrant("spotBills")(Effect.void), forks)
      }
      const end = Date.now()
      yield* Effect.sleep("200 millis")
      // 20 grants, and the releases with them or together after the last: 21 (up to 30 on a
      // machine that stalls beyond the releases' wait). With a release sent per request: 40 (43
      // when broken so); with its deadline raced as before: 40 fibers.
      const calls = (yield* scriptCalls(admin)) - before
      expect(calls).toBeGreaterThanOrEqual(21)
      expect(calls).toBeLessThanOrEqual(30)
      expect(forks.count).toBe(0)
      // Every request's entry sits where it finished: none is left counting as in flight (`hold`).
      const log = `bills:budget:releases-${process.pid}:spotBills`
      const scores = (yield* Effect.promise(() => admin.zrange(log, 0, -1, "WITHSCORES")))
        .filter((_, i) => i % 2 === 1)
        .map(Number)
      expect(scores).toHaveLength(21)
      for (const score of scores) expect(score).toBeLessThanOrEqual(end + 50)
    }).pipe(Effect.scoped)
  )
})
