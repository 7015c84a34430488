/**
 * A lazy merge of two time-ordered streams into one.
 *
 * The streams come in the exchange's order, which the interface leaves open: oldest first or
 * newest first. The merge learns the direction from the data (the first two different times
 * either side shows) and then always emits the head that comes first in it. Until then it holds
 * at most one millisecond's run of bills per side, the least it needs to see the direction. Every
 * emitted bill is checked against the one before, so the output is in time order or the stream
 * fails: a side that goes back and forth cannot be merged without holding all of it.
 */
import type * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { BillsIncomplete } from "../Errors.js"
import type { OperationName } from "../Operation.js"

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
 * Merges `left` and `right`, both in time order (the same direction, either one), into one
 * stream in that order; at equal times `left` comes first. Pulls only as far as it must.
 */
export const mergeByTime = <A extends object, E, R>(
  left: MergeSide<A, E, R>,
  right: MergeSide<A, E, R>,
  millisOf: (a: A) => number
): Stream.Stream<A, E | BillsIncomplete, R> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const sides: ReadonlyArray<SideState<A, E, R>> = [
        { operation: left.operation, pull: yield* Stream.toPull(left.stream), buffer: [], done: false },
        { operation: right.operation, pull: yield* Stream.toPull(right.stream), buffer: [], done: false }
      ]
      const [l, r] = sides as [SideState<A, E, R>, SideState<A, E, R>]
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
        const a = yield* head(l)
        const b = yield* head(r)
        if (a === undefined && b === undefined) return Option.none()
        if (b === undefined) return yield* emit(l)
        if (a === undefined) return yield* emit(r)
        const ta = millisOf(a)
        const tb = millisOf(b)
        if (ta === tb) return yield* emit(l)
        if (direction === undefined) {
          // Neither side shows a direction only when each holds one millisecond: then any is right.
          direction = (yield* reveal(l)) ?? (yield* reveal(r)) ?? "ascending"
        }
        const leftFirst = direction === "ascending" ? ta < tb : ta > tb
        return yield* emit(leftFirst ? l : r)
      })

      return Stream.repeatEffectOption(
        step.pipe(
          Effect.mapError(Option.some),
          Effect.flatMap((next) => (Option.isSome(next) ? Effect.succeed(next.value) : Effect.fail(Option.none())))
        )
      )
    })
  )
