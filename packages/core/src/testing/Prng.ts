/**
 * A tiny seeded pseudo-random generator (mulberry32) for the fake exchange's bills and random
 * faults: the same seed gives the same sequence on every run and platform, and drawing a number
 * is cheap enough to generate a million bills.
 *
 * @since 0.1.0
 */

/**
 * A mutable seeded random source. Not an Effect service on purpose: it is internal state of the
 * model, advanced inside `Effect.sync` blocks.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prng {
  /** A float in [0, 1). */
  readonly next: () => number
  /** An integer in [0, bound). */
  readonly int: (bound: number) => number
  /** An integer in [min, max]. */
  readonly between: (min: number, max: number) => number
  /** One element of a non-empty array. */
  readonly pick: <A>(items: ReadonlyArray<A>) => A
}

/**
 * Creates a generator from a 32-bit seed (other numbers are truncated to 32 bits).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (seed: number): Prng => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (bound: number): number => Math.floor(next() * bound)
  const between = (min: number, max: number): number => min + int(max - min + 1)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)] as A
  return { next, int, between, pick }
}
