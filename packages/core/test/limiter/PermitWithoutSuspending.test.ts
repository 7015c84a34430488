import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import { BillsRateLimiter } from "../../src/index.js"

/**
 * Counts, for the fiber it supervises first, how often it stops running (each async step it
 * waits on: a Deferred, a sleep, a join; and once at its end), and how many fibers start under it.
 */
class Counting extends Supervisor.AbstractSupervisor<void> {
  readonly value = Effect.void
  first: Fiber.RuntimeFiber<unknown, unknown> | undefined
  suspends = 0
  started = 0
  override onStart<A, E, R>(
    _context: unknown,
    _effect: Effect.Effect<A, E, R>,
    _parent: unknown,
    fiber: Fiber.RuntimeFiber<A, E>
  ): void {
    this.started++
    this.first ??= fiber as Fiber.RuntimeFiber<unknown, unknown>
  }
  override onSuspend<A, E>(fiber: Fiber.RuntimeFiber<A, E>): void {
    if (fiber === this.first) this.suspends++
  }
}

/** Runs `effect` on a fiber of its own under a fresh `Counting`, and returns the counts. */
const counted = <A>(effect: Effect.Effect<A>, whileRunning: Effect.Effect<void> = Effect.void) =>
  Effect.gen(function* () {
    const counting = new Counting()
    const fiber = yield* Effect.fork(effect).pipe(Effect.supervised(counting))
    yield* whileRunning
    yield* Fiber.join(fiber)
    return { suspends: counting.suspends, fibers: counting.started }
  })

describe("BillsRateLimiter: what a permit costs its fiber", () => {
  it.effect("a taker whose window is open takes its permit without waiting on anything", () =>
    Effect.gen(function* () {
      // A fiber that never waits stops once, at its end.
      const bare = yield* counted(Effect.void)
      const limiter = yield* BillsRateLimiter.make({ limit: 3, window: Duration.millis(1000), margin: 0 })
      // Three permits one after another: each finds the one before it granted and its window open.
      const takes = yield* counted(
        Effect.all([limiter.take("spotBills"), limiter.take("spotBills"), limiter.take("spotBills")])
      )
      expect(takes).toEqual(bare)
    })
  )

  it.effect("a permit that must wait costs its fiber what a plain sleep does: one sleep, until its window opens", () =>
    Effect.gen(function* () {
      const sleepsNow = Effect.map(TestClock.sleeps(), Chunk.toReadonlyArray)
      const plain = yield* counted(Effect.sleep(Duration.millis(600)), TestClock.adjust(Duration.millis(600)))
      const limiter = yield* BillsRateLimiter.make({ limit: 3, window: Duration.millis(1000), margin: 0 })
      const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      yield* Effect.all([limiter.take("spotBills"), limiter.take("spotBills"), limiter.take("spotBills")])
      yield* TestClock.adjust(Duration.millis(400))
      const pending: Array<ReadonlyArray<number>> = []
      const fourth = yield* counted(
        limiter.take("spotBills"),
        Effect.gen(function* () {
          yield* Effect.yieldNow()
          pending.push(yield* sleepsNow)
          yield* TestClock.adjust(Duration.millis(600))
        })
      )
      // One sleep, to the instant a window after the first grant, and no fiber forked for it.
      expect(pending).toEqual([[start + 1000]])
      expect(fourth).toEqual(plain)
    })
  )
})
