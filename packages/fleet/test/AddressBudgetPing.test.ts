/**
 * `AddressBudget.layerRedis`'s ping, a runner's `/readyz` check of its shared budget: it answers
 * while Redis does, and fails with `BudgetUnavailable` (the password in the URL hidden) when
 * Redis is cut off, or within about a second when Redis hangs, whatever the client's retries.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { AddressBudget, BudgetUnavailable } from "../src/index.js"
import { redisBudget } from "./support/redisBudget.js"
import { redisServerBin, scopedRedisServer } from "./support/redisServer.js"
import { redisUrl } from "./support/services.js"
import { scopedProxy, through } from "./support/tcpProxy.js"

const pingOf = (url: string) =>
  Effect.gen(function* () {
    const budget = yield* redisBudget(url, { limit: 1, address: `ping-${process.pid}-${Date.now()}` })
    const ping = budget.ping
    expect(ping).toBeDefined()
    return ping ?? Effect.void
  })

describe.skipIf(redisUrl === undefined)("the shared budget's ping", () => {
  it.live("answers while Redis does, fails with BudgetUnavailable once Redis is cut off", () =>
    Effect.gen(function* () {
      const proxy = yield* scopedProxy(redisUrl ?? "")
      const ping = yield* pingOf(through(redisUrl ?? "", proxy.port))
      expect(yield* Effect.exit(ping)).toEqual(Exit.void)
      yield* Effect.promise(() => proxy.cut())
      const error = yield* Effect.flip(ping)
      expect(error).toBeInstanceOf(BudgetUnavailable)
    }).pipe(Effect.scoped)
  )

  it.live("a Redis that cannot be reached fails the layer, its password kept out of the error", () =>
    Effect.gen(function* () {
      const proxy = yield* scopedProxy(redisUrl ?? "")
      yield* Effect.promise(() => proxy.cut())
      const url = through(redisUrl ?? "", proxy.port).replace("//", "//budget:s3cret-pass@")
      const error = yield* Layer.build(AddressBudget.layerRedis(url, { limit: 1 })).pipe(Effect.flip)
      expect(error).toBeInstanceOf(BudgetUnavailable)
      expect(error.target).toBe(`redis://***@127.0.0.1:${proxy.port}`)
      expect(error.message).not.toContain("s3cret")
      expect(error.reason).toMatch(/ECONNREFUSED|ECONNRESET/)
    }).pipe(Effect.scoped)
  )
})

describe.skipIf(redisServerBin === undefined)("the shared budget's ping to a Redis that hangs", () => {
  it.live("fails within about a second, saying there was no answer", () =>
    Effect.gen(function* () {
      const server = yield* scopedRedisServer
      const ping = yield* pingOf(server.url)
      yield* server.hang()
      const started = Date.now()
      const error = yield* Effect.flip(ping)
      const took = Date.now() - started
      expect(error).toBeInstanceOf(BudgetUnavailable)
      expect(error.reason).toBe("no answer within 1 s")
      expect(took).toBeGreaterThanOrEqual(990)
      expect(took).toBeLessThan(2_500)
    }).pipe(Effect.scoped)
  )
})
