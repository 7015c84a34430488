/**
 * The exchange's history rule, as the walks learn it: how far back it serves (a horizon, which
 * moves with its clock) and how wide a window it accepts. It refuses both with one code
 * (`BillsApiError` reason `"HistoryLimit"`), so a refusal alone does not say which rule was
 * broken. The walks learn the rule from the refusal and a few probes (requests of one record over
 * a window of a millisecond), and from then on clip their window to the horizon and cut it into
 * slices no wider than the width accepted.
 *
 * Cost: a refusal is followed by one probe at the refused start (a horizon refuses it too, a
 * width rule does not). The refusal's text is read for a number of days ("the last N days",
 * "three months"); when it names one, one or two probes confirm it. Without one, a width is found
 * by halving the refused window (one probe per halving) and a horizon by bisecting between the
 * refused start and the window's end (one probe per halving of that gap, to the millisecond).
 */
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import type { BillsApiError, BillsError } from "../Errors.js"

/**
 * What a walk knows of the exchange's history rule.
 */
export interface HistoryRule {
  /** First millisecond the exchange serves to a windowed request, as last found. */
  readonly servedFrom?: number | undefined
  /** Widest window (end bound minus start bound) the exchange accepted after refusing a wider one. */
  readonly maxWidth?: number | undefined
}

/** The rule's fields of a cursor, those known. */
export const ruleFields = (rule: HistoryRule): HistoryRule => ({
  ...(rule.servedFrom === undefined ? {} : { servedFrom: rule.servedFrom }),
  ...(rule.maxWidth === undefined ? {} : { maxWidth: rule.maxWidth })
})

/** The page value's `servedFrom`: set once the walk's window is clipped to the exchange's horizon. */
export const servedFromOf = (cursor: {
  readonly from?: number | undefined
  readonly servedFrom?: number | undefined
}): DateTime.Utc | undefined =>
  cursor.servedFrom !== undefined && cursor.servedFrom > (cursor.from ?? 0)
    ? DateTime.unsafeMake(cursor.servedFrom)
    : undefined

/** Whether `error` is the exchange's refusal of a window for its age or its width. */
export const isHistoryLimit = (error: BillsError): error is BillsApiError =>
  error._tag === "BillsApiError" && error.reason === "HistoryLimit"

/**
 * Whether the exchange accepts a window from `start` to `end` (bounds as sent): `undefined` when
 * it does, the refusal's text when it refuses it for the history rule; any other failure fails.
 */
export type Probe = (start: number, end: number) => Effect.Effect<string | undefined, BillsError>

/** Adapts a one-record request to a {@link Probe}. */
export const probeBy =
  (request: (start: number, end: number) => Effect.Effect<unknown, BillsError>): Probe =>
  (start, end) =>
    request(start, end).pipe(
      Effect.as(undefined),
      Effect.catchIf(isHistoryLimit, (refusal) => Effect.succeed(refusal.msg))
    )

/** Whether `probe` accepts the window. */
const accepted = (probe: Probe, start: number, end: number) =>
  Effect.map(probe(start, end), (refusal) => refusal === undefined)

const day = 86_400_000

/**
 * Room left above a horizon found (from a hint or by bisection): the exchange's clock and ours differ by a few
 * seconds, and the horizon moves on while the walk runs. A minute keeps a walk of a minute from
 * meeting the horizon again (each meeting costs a refusal and three probes); the bills of that
 * minute at the edge of the served history are left out, and `servedFrom` says so.
 */
const horizonMargin = 60_000

/** The span of days the refusal names, if it names one. */
export const hintOf = (msg: string): number | undefined => {
  const days = /(\d+(?:\.\d+)?)\s*days?\b/i.exec(msg)
  if (days !== null) return Number(days[1]) * day
  if (/\b(three|3)\s+months?\b/i.test(msg)) return 90 * day
  return undefined
}

/** The widest window from `end` back that is accepted, below the refused `refusedWidth`. */
const findWidth = (
  probe: Probe,
  end: number,
  refusedWidth: number,
  hint: number | undefined
): Effect.Effect<number | undefined, BillsError> =>
  Effect.gen(function* () {
    if (hint !== undefined && hint >= 2 && hint < refusedWidth && (yield* accepted(probe, end - hint, end))) return hint
    for (let width = Math.floor(refusedWidth / 2); width >= 2; width = Math.floor(width / 2)) {
      if (yield* accepted(probe, end - width, end)) return width
    }
    return undefined
  })

/**
 * The lowest start accepted between the refused `refused` and `end`, or `end` when none is.
 * `again`: the walk met a horizon it had found before, which has moved on since; a start a
 * margin above the refused one is then tried first.
 */
const findHorizon = (
  probe: Probe,
  refused: number,
  end: number,
  hint: number | undefined,
  again: boolean
): Effect.Effect<number, BillsError> =>
  Effect.gen(function* () {
    let lo = refused
    let hi: number | undefined
    // A horizon found to the millisecond (bisected, a hint that did not hold) has moved by the
    // time the next request arrives: without room above it, every request meets it again.
    if (again) {
      const near = refused + horizonMargin
      if (near < end && (yield* accepted(probe, near, near + 1))) return near
    }
    if (hint !== undefined) {
      const now = yield* Clock.currentTimeMillis
      const guess = now - hint + horizonMargin
      if (guess > lo && guess < end) {
        if (yield* accepted(probe, guess, guess + 1)) {
          const below = guess - 2 * horizonMargin
          if (below <= lo || !(yield* accepted(probe, below, below + 1))) return guess
          hi = below
        } else {
          lo = guess
        }
      }
    }
    if (hi === undefined) {
      if (!(yield* accepted(probe, end - 1, end))) return end
      hi = end - 1
    }
    let lowest: number = hi
    while (lowest - lo > 1) {
      const mid = lo + Math.floor((lowest - lo) / 2)
      if (yield* accepted(probe, mid, mid + 1)) lowest = mid
      else lo = mid
    }
    // The same room as above a hinted horizon: found to the millisecond, it has moved on by the
    // time the bisection ends (a probe per halving, each a round trip), and a walk clipped right
    // at it would meet it again at once, relearning until it gives up.
    return Math.min(lowest + horizonMargin, end)
  })

/**
 * What the refusal of the window from `start` (`undefined`: no start bound) to `end` teaches
 * about the rule, given `rule` it was built with; `undefined` when it teaches nothing new.
 */
export const learn = (
  probe: Probe,
  refusal: BillsApiError,
  window: { readonly start: number | undefined; readonly end: number },
  rule: HistoryRule
): Effect.Effect<HistoryRule | undefined, BillsError> =>
  Effect.gen(function* () {
    const start = window.start ?? 0
    const narrow = yield* probe(start, start + 1)
    if (narrow === undefined) {
      // Not the horizon: a window that starts there is accepted when it is narrow.
      const width = yield* findWidth(probe, window.end, window.end - start, hintOf(refusal.msg))
      if (width === undefined || (rule.maxWidth !== undefined && width >= rule.maxWidth)) return undefined
      return { ...rule, maxWidth: width }
    }
    // A narrow window refused is refused for its age: its text speaks of the horizon.
    const hint = hintOf(narrow) ?? hintOf(refusal.msg)
    // The bound is sent one millisecond before the first millisecond the walk reads.
    const servedFrom = (yield* findHorizon(probe, start, window.end, hint, rule.servedFrom !== undefined)) + 1
    if (rule.servedFrom !== undefined && servedFrom <= rule.servedFrom) return undefined
    return { ...rule, servedFrom }
  })

/**
 * The rule one stream shares among its walks: one learns at a time, and a walk refused under a
 * rule that another has since changed simply tries again under the new one.
 */
export interface RuleCell {
  readonly get: Effect.Effect<HistoryRule>
  /**
   * After `refusal` of a window built under `used`: `true` when there is a new rule to try
   * (learned now, or by another walk meanwhile), `false` when the refusal teaches nothing.
   */
  readonly refused: (
    used: HistoryRule,
    refusal: BillsApiError,
    window: { readonly start: number | undefined; readonly end: number },
    probe: Probe
  ) => Effect.Effect<boolean, BillsError>
}

/** A rule cell starting from `initial`. */
export const makeRuleCell = (initial: HistoryRule): Effect.Effect<RuleCell> =>
  Effect.map(Effect.makeSemaphore(1), (semaphore) => {
    let rule = initial
    return {
      get: Effect.sync(() => rule),
      refused: (used, refusal, window, probe) =>
        semaphore.withPermits(1)(
          Effect.suspend(() =>
            rule !== used
              ? Effect.succeed(true)
              : Effect.map(learn(probe, refusal, window, rule), (learned) => {
                  if (learned === undefined) return false
                  rule = learned
                  return true
                })
          )
        )
    }
  })

/** Refusals a page may meet and learn from before the walk gives up with the last one. */
export const maxRelearns = 8
