/**
 * A request given up on its way may still reach the exchange: its grant must keep counting a
 * window beyond the moment it was given up. A Redis budget of 1 per second; a sender gives up at
 * 100 ms on a request that still arrives at 300 ms; the next grant's request must arrive at least
 * a window after it (a grant released at once let them arrive ~800 ms apart), even when the
 * log is lost before its delayed release reaches Redis.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { AddressBudget } from "../src/index.js"
import { scopedAdmin } from "./support/redisBudget.js"
import { redisUrl } from "./support/services.js"

const addressOf = (name: string) => `${name}-${process.pid}-${Date.now()}`

const layerOf = (name: string, address = addressOf(name)) =>
  Layer.fresh(AddressBudget.layerRedis(redisUrl ?? "", { limit: 1, window: Duration.seconds(1), address }))

/**
 * A budget whose state is made: the first grant on an address makes it, and nothing is granted
 * for a window after that (Redis cannot tell a first use from a loss of its data).
 */
const primed = Effect.flatMap(AddressBudget, (budget) =>
  budget
    .withGrant("spotBills")(Effect.void)
    .pipe(Effect.zipRight(Effect.sleep("1100 millis")))
)

describe.skipIf(redisUrl === undefined)("a grant given up on its way", () => {
  it.live("counts one more window: the next request arrives a window after the one given up", () =>
    Effect.gen(function* () {
      yield* primed
      const budget = yield* AddressBudget
      const arrivals: Array<number> = []
      // The request leaves at its grant and arrives 300 ms later whatever its sender does.
      const travelling = Effect.gen(function* () {
        yield* Effect.forkDaemon(
          Effect.sleep("300 millis").pipe(Effect.zipRight(Effect.sync(() => void arrivals.push(Date.now()))))
        )
        yield* Effect.never
      })
      yield* budget.withGrant("spotBills")(travelling).pipe(Effect.timeout("100 millis"), Effect.ignore)
      yield* budget.withGrant("spotBills")(Effect.sync(() => void arrivals.push(Date.now())))
      yield* Effect.sleep("400 millis")
      const [given, next] = [...arrivals].sort((a, b) => a - b)
      expect(arrivals).toHaveLength(2)
      expect((next ?? 0) - (given ?? 0)).toBeGreaterThanOrEqual(1_000)
    }).pipe(Effect.provide(layerOf("give-up")))
  )

  it.live("its grant still counts a window after it was given up when the log is lost before its release", () => {
    const address = addressOf("give-up-loss")
    return Effect.gen(function* () {
      yield* primed
      const budget = yield* AddressBudget
      const admin = yield* scopedAdmin(redisUrl ?? "")
      // Given up once granted and on its way (a timeout could strike while it still waits on a
      // loaded machine, and then nothing would count).
      const sent = yield* Deferred.make<void>()
      const request = yield* Effect.fork(
        budget.withGrant("spotBills")(Effect.zipRight(Deferred.succeed(sent, undefined), Effect.never))
      )
      yield* Deferred.await(sent)
      yield* Fiber.interrupt(request)
      const givenUp = Date.now()
      // A failover that lost the log's last writes, the connection kept: the given-up grant,
      // whose release waits a window, is gone from the log.
      yield* Effect.promise(() => admin.del(`bills:budget:${address}:spotBills`))
      const next = yield* budget.withGrant("spotBills")(Effect.sync(() => Date.now()))
      expect(next - givenUp).toBeGreaterThanOrEqual(1_000)
    }).pipe(Effect.scoped, Effect.provide(layerOf("give-up-loss", address)))
  })

  it.live("a grant in flight longer than a window holds its place until it has finished", () =>
    Effect.gen(function* () {
      yield* primed
      const budget = yield* AddressBudget
      const arrivals: Array<number> = []
      // A slow request: it reaches the exchange only 1.4 s after its grant, and ends at 1.5 s.
      const slow = Effect.sleep("1400 millis").pipe(
        Effect.zipRight(Effect.sync(() => void arrivals.push(Date.now()))),
        Effect.zipRight(Effect.sleep("100 millis"))
      )
      const first = yield* Effect.fork(budget.withGrant("spotBills")(slow))
      yield* Effect.sleep("100 millis")
      yield* budget.withGrant("spotBills")(Effect.sync(() => void arrivals.push(Date.now())))
      yield* first.await
      const [early, late] = [...arrivals].sort((a, b) => a - b)
      expect(arrivals).toHaveLength(2)
      expect((late ?? 0) - (early ?? 0)).toBeGreaterThanOrEqual(1_000)
    }).pipe(Effect.provide(layerOf("in-flight")))
  )
})
