/**
 * Every grant script call of every ioredis client in this process, until the scope closes: per
 * log key, how many were made, the most in flight at once and the status of each answer (`1` granted, `0`
 * wait, `2` ask again with your own grants; see `internal/slidingLog.ts`).
 */
import * as Effect from "effect/Effect"
import { Redis } from "ioredis"
import * as RedisScript from "../../src/internal/redisScript.js"
import { grantScript } from "../../src/internal/slidingLog.js"

type Evaluate = (...args: Array<unknown>) => Promise<unknown>

export interface GrantCalls {
  /** Per log key, how many grant calls were made, failed ones too. */
  readonly made: ReadonlyMap<string, number>
  /** Per log key, the most grant calls in flight at once. */
  readonly most: ReadonlyMap<string, number>
  /** The most log keys with a grant call in flight at once. */
  readonly mostKeys: () => number
  /** Per log key, each answer's status, in order. */
  readonly statuses: ReadonlyMap<string, ReadonlyArray<number>>
}

type Prototype = { eval: Evaluate; evalsha: Evaluate }

export const recordedGrantCalls = Effect.acquireRelease(
  Effect.sync(() => {
    const proto = Redis.prototype as unknown as Prototype
    const original = { eval: proto.eval, evalsha: proto.evalsha }
    // The budget sends the grant script by digest, and its text only when Redis answers NOSCRIPT:
    // one grant call is then two commands, counted once (the refused EVALSHA is not).
    const grantSha = RedisScript.make(grantScript).sha
    const inFlight = new Map<string, number>()
    const made = new Map<string, number>()
    const most = new Map<string, number>()
    const statuses = new Map<string, Array<number>>()
    let mostKeys = 0
    const recorded = (send: Evaluate, script: unknown) =>
      function (this: unknown, ...args: Array<unknown>) {
        if (args[0] !== script) return send.apply(this, args)
        const key = String(args[2])
        made.set(key, (made.get(key) ?? 0) + 1)
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1)
        most.set(key, Math.max(most.get(key) ?? 0, inFlight.get(key) ?? 0))
        mostKeys = Math.max(mostKeys, [...inFlight.values()].filter((n) => n > 0).length)
        return send
          .apply(this, args)
          .then(
            (answer) => {
              const status = Array.isArray(answer) ? Number(answer[0]) : Number.NaN
              statuses.set(key, [...(statuses.get(key) ?? []), status])
              return answer
            },
            (error: unknown) => {
              if (error instanceof Error && error.message.startsWith("NOSCRIPT"))
                made.set(key, (made.get(key) ?? 1) - 1)
              return Promise.reject(error)
            }
          )
          .finally(() => inFlight.set(key, (inFlight.get(key) ?? 1) - 1))
      }
    proto.eval = recorded(original.eval, grantScript)
    proto.evalsha = recorded(original.evalsha, grantSha)
    const calls: GrantCalls = { made, most, mostKeys: () => mostKeys, statuses }
    return { original, calls }
  }),
  ({ original }) =>
    Effect.sync(() => {
      const proto = Redis.prototype as unknown as Prototype
      proto.eval = original.eval
      proto.evalsha = original.evalsha
    })
).pipe(Effect.map(({ calls }) => calls))
