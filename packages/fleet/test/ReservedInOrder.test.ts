/**
 * `reservedInOrder`: a reserved connection runs one statement at a time, whatever asks it at
 * once (node-postgres deprecates a second query on a busy client, and pg 9 refuses it), while
 * two reserved connections still run side by side. Against a connection that counts the
 * statements it holds at once, under the TestClock.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as ReservedInOrder from "../src/internal/reservedInOrder.js"

/** A SqlClient whose `reserve` hands out connections that each count the statements they run at once. */
const counting = () => {
  const most: Array<number> = []
  let everywhere = 0
  let mostEverywhere = 0
  const connection = (index: number): Connection => {
    most[index] = 0
    let running = 0
    const statement = <A>(value: A) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          running++
          everywhere++
          most[index] = Math.max(most[index] ?? 0, running)
          mostEverywhere = Math.max(mostEverywhere, everywhere)
        }),
        () => Effect.as(Effect.sleep("10 millis"), value),
        () =>
          Effect.sync(() => {
            running--
            everywhere--
          })
      )
    return {
      execute: () => statement([]),
      executeRaw: () => statement([]),
      executeValues: () => statement([]),
      executeUnprepared: () => statement([]),
      executeStream: () => Stream.unwrap(statement(Stream.make({ row: 1 })))
    }
  }
  let reserved = 0
  const sql = { reserve: Effect.sync(() => connection(reserved++)) } as unknown as SqlClient.SqlClient
  return { sql, most, mostEverywhere: () => mostEverywhere }
}

describe("reservedInOrder", () => {
  it.effect("one statement at a time on a reserved connection; two connections side by side", () =>
    Effect.gen(function* () {
      const { sql, most, mostEverywhere } = counting()
      const inOrder = ReservedInOrder.make(sql)
      const work = Effect.scoped(
        Effect.gen(function* () {
          const one = yield* inOrder.reserve
          yield* Effect.all(
            [
              one.execute("SELECT 1", [], undefined),
              one.execute("SELECT 2", [], undefined),
              one.executeRaw("SELECT 3", []),
              one.executeValues("SELECT 4", []),
              one.executeUnprepared("SELECT 5", [], undefined),
              Stream.runCollect(one.executeStream("SELECT 6", [], undefined)).pipe(Effect.map(Chunk.toReadonlyArray))
            ],
            { concurrency: "unbounded" }
          )
        })
      )
      const both = yield* Effect.fork(Effect.all([work, work], { concurrency: "unbounded" }))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(both)
      expect(most).toEqual([1, 1])
      expect(mostEverywhere()).toBe(2)
    })
  )
})
