/**
 * A lazy merge of time-ordered streams (the ledger's accounts) into one.
 *
 * The streams come in the exchange's order, which the interface leaves open: oldest first or
 * newest first. The merge learns the direction from the data (the first two different times
 * any side shows) and then always emits the head that comes first in it. Until then it holds
 * at most one millisecond's run of bills per side, the least it needs to see the direction. Every
 * emitted bill is checked against the one before, so the output is in time order or the stream
 * fails: a side that goes back and forth cannot be merged without holding all of it.
 */
import type * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { BillsIncomplete, type OperationName } from "@account-bills/core"

/**
 * One input of the merge.
 */
export interface MergeSide<A, E, R> {
  readonly operation: OperationName
  readonly stream: Stream.Stream<A, E, R>
}

type Direction = "ascending" | "descending"

interface SideState<A, E, R> {
  readonly operation: OperationName
  readonly pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<E>, R>
  /** Pulled and not yet emitted, oldest pull first. */
  buffer: Array<A>
  done: boolean
}

const outOfOrder = (operation: OperationName, previous: number, next: number, direction: Direction) =>
  new BillsIncomplete({
    operation,
    millisecond: next,
    description: `the exchange listed a bill at ${next} after one at ${previous} while listing ${direction}; bills out of time order cannot be merged without holding them all`
  })

/**
 * Merges `sides`, each in time order (the same direction, either one), into one stream in that
 * order; at equal times the side given first comes first. Pulls only as far as it must.
 */
export const mergeByTime = <A extends object, E, R>(
  sides: ReadonlyArray<MergeSide<A, E, R>>,
  millisOf: (a: A) => number
): Stream.Stream<A, E | BillsIncomplete, R> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const states: Array<SideState<A, E, R>> = []
      for (const side of sides) {
        states.push({ operation: side.operation, pull: yield* Stream.toPull(side.stream), buffer: [], done: false })
      }
      let direction: Direction | undefined
      let lastMillis: number | undefined

      /** Pulls one more chunk into the side's buffer; false once the side has ended. */
      const more = (side: SideState<A, E, R>): Effect.Effect<boolean, E, R> =>
        side.done
          ? Effect.succeed(false)
          : side.pull.pipe(
              Effect.map((chunk) => {
                for (const a of chunk) side.buffer.push(a)
                return true
              }),
              Effect.catchAll(
                Option.match({
                  onNone: () =>
                    Effect.sync(() => {
                      side.done = true
                      return false
                    }),
                  onSome: (error) => Effect.fail(error)
                })
              )
            )

      const head = (side: SideState<A, E, R>): Effect.Effect<A | undefined, E, R> =>
        Effect.gen(function* () {
          while (side.buffer.length === 0 && (yield* more(side))) {}
          return side.buffer[0]
        })

      /** The direction a side shows beyond its head, pulling through one millisecond's run. */
      const reveal = (side: SideState<A, E, R>): Effect.Effect<Direction | undefined, E, R> =>
        Effect.gen(function* () {
          const first = millisOf(side.buffer[0] as A)
          let index = 1
          while (true) {
            while (index >= side.buffer.length) {
              if (!(yield* more(side))) return undefined
            }
            const t = millisOf(side.buffer[index] as A)
            if (t !== first) return t > first ? "ascending" : "descending"
            index++
          }
        })

      const emit = (side: SideState<A, E, R>): Effect.Effect<Option.Option<A>, BillsIncomplete> => {
        const a = side.buffer.shift() as A
        const t = millisOf(a)
        const previous = lastMillis
        if (previous !== undefined && t !== previous) {
          const seen: Direction = t > previous ? "ascending" : "descending"
          if (direction !== undefined && seen !== direction) {
            return Effect.fail(outOfOrder(side.operation, previous, t, direction))
          }
          direction = seen
        }
        lastMillis = t
        return Effect.succeed(Option.some(a))
      }

      /** The next bill, or none at the end. */
      const step: Effect.Effect<Option.Option<A>, E | BillsIncomplete, R> = Effect.gen(function* () {
        const heads: Array<readonly [SideState<A, E, R>, number]> = []
        for (const side of states) {
          const a = yield* head(side)
          if (a !== undefined) heads.push([side, millisOf(a)])
        }
        if (heads.length === 0) return Option.none()
        const times = new Set(heads.map(([, t]) => t))
        if (times.size > 1 && direction === undefined) {
          // No side shows a direction only when each holds one millisecond: then any is right.
          for (const [side] of heads) {
            direction = yield* reveal(side)
            if (direction !== undefined) break
          }
          direction = direction ?? "ascending"
        }
        // The first side (in the order given) whose head comes first in the direction.
        let best = heads[0] as readonly [SideState<A, E, R>, number]
        for (const candidate of heads) {
          if (direction === "descending" ? candidate[1] > best[1] : candidate[1] < best[1]) best = candidate
        }
        return yield* emit(best[0])
      })

      return Stream.repeatEffectOption(
        step.pipe(
          Effect.mapError(Option.some),
          Effect.flatMap((next) => (Option.isSome(next) ? Effect.succeed(next.value) : Effect.fail(Option.none())))
        )
      )
    })
  )
