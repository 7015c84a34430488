/**
 * A `layerRedis` budget built in the test's scope, standing for a process of its own: each call
 * makes its own Redis client and its own record of grants.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Redis } from "ioredis"
import { AddressBudget, type AddressBudgetOptions } from "../../src/index.js"

export const redisBudget = (url: string, options: AddressBudgetOptions) =>
  Effect.map(Layer.build(Layer.orDie(AddressBudget.layerRedis(url, options))), Context.get(AddressBudget))

/** A plain client of the Redis at `url` for the lifetime of the scope: a test's hand on the budget's keys. */
export const scopedAdmin = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => new Redis(url)),
    (client) => Effect.promise(() => client.quit())
  )

/** Calls of each command the Redis of `redis` has run, from its own `INFO commandstats`. */
export const commandCalls = (redis: Redis) =>
  Effect.map(
    Effect.promise(() => redis.info("commandstats")),
    (text) =>
      new Map(
        [...text.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((match) => [match[1] ?? "", Number(match[2])] as const)
      )
  )
