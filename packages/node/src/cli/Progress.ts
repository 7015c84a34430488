/**
 * Progress of an export or a sync on standard error: when stderr is a terminal, one live line
 * per account, redrawn in place; in any case one summary line per account at its end, a line
 * for what the exchange said about its history, and on an interrupt what each account got.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { duration, etaMillis, percent } from "./ProgressEstimate.js"

/**
 * Counters the progress line shows.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressCounts {
  readonly bills: number
  readonly pages: number
  readonly requests: number
  readonly elapsedMillis: number
}

/**
 * Where one account stands: its counters, the share of its walk done (0 to 1, see
 * ProgressEstimate.ts; `undefined` when not known) and the time its walk has read up to.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressSnapshot extends Omit<ProgressCounts, "elapsedMillis"> {
  readonly share: number | undefined
  /** Epoch ms the walk has read up to, when known. */
  readonly reached?: number | undefined
}

/** Below this, a rate says more about the limiter's opening burst than about the run. */
const rateAfterMillis = 5_000

const seconds = (millis: number) => (millis / 1000).toFixed(1)

/**
 * `1 bill`, `2 bills`.
 *
 * @since 0.1.0
 * @category utils
 */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

const rate = (requests: number, elapsedMillis: number): string =>
  `${((requests * 1000) / elapsedMillis).toFixed(1)} req/s`

/**
 * A time to the minute, for a person: `2026-09-01T12:00Z`.
 *
 * @since 0.1.0
 * @category utils
 */
export const minute = (millis: number): string => `${new Date(millis).toISOString().slice(0, 16)}Z`

/**
 * The text of a summary line. The rate is the plain average, shown once the run is long
 * enough for it to mean something, so the line never contradicts itself.
 *
 * @since 0.1.0
 * @category utils
 */
export const render = (label: string, counts: ProgressCounts): string =>
  `${label}: ${count(counts.bills, "bill")}, ${count(counts.pages, "page")}, ${count(counts.requests, "request")} in ${seconds(counts.elapsedMillis)} s${counts.elapsedMillis >= rateAfterMillis ? ` (${rate(counts.requests, counts.elapsedMillis)})` : ""}`

/**
 * The live text of one account: its share and what is left by the pace so far when the share
 * is known; else what is known, the counters, the rate and the time the walk has reached.
 *
 * @since 0.1.0
 * @category utils
 */
export const renderLive = (label: string, snapshot: ProgressSnapshot, elapsedMillis: number): string =>
  snapshot.share === undefined
    ? `${label} ${count(snapshot.bills, "bill")}, ${count(snapshot.pages, "page")}, ${elapsedMillis > 0 ? rate(snapshot.requests, elapsedMillis) : "0 req/s"}${snapshot.reached === undefined ? "" : `, reached ${minute(snapshot.reached)}`}`
    : `${label} ${percent(snapshot.share)} ETA ${duration(etaMillis(snapshot.share, elapsedMillis))} (${snapshot.bills} bills, ${snapshot.requests} req)`

const eraseBlock = (lines: number) => (lines > 0 ? `\x1b[${lines}F\x1b[J` : "")

/**
 * Progress for the accounts in `labels`, redrawn at most ten times a second, only on a
 * terminal: every account on its own line, below the lines already final (summaries, notes).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeProgress = (labels: ReadonlyArray<string>, live: boolean) =>
  Effect.map(Clock.currentTimeMillis, (start) => {
    let drawnAt = 0
    let drawn = 0
    const running = new Map<string, ProgressSnapshot>(
      labels.map((label) => [label, { bills: 0, pages: 0, requests: 0, share: 0 }])
    )
    const block = (now: number) =>
      [...running].map(([label, snapshot]) => `${renderLive(label, snapshot, now - start)}\n`).join("")
    /** Writes `lines` (final) above the live block, then the block again. */
    const write = (lines: string, now: number) => {
      if (!live) {
        process.stderr.write(lines)
        return
      }
      process.stderr.write(`${eraseBlock(drawn)}${lines}${block(now)}`)
      drawn = running.size
    }
    const update = (label: string, snapshot: ProgressSnapshot) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          running.set(label, snapshot)
          if (!live || now - drawnAt < 100) return
          drawnAt = now
          write("", now)
        })
      )
    const note = (line: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => write(`${line}\n`, now)))
    /** The account is done: its live line gives way to `line`, final. */
    const end = (label: string, line: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          running.delete(label)
          write(`${line}\n`, now)
        })
      )
    /** The account is done: its live line gives way to its summary line (`render`). */
    const finish = (label: string, counts: Omit<ProgressCounts, "elapsedMillis">) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const done: ProgressCounts = { ...counts, elapsedMillis: now - start }
        return Effect.as(end(label, render(label, done)), done)
      })
    /** What each unfinished account got, one line each, then `after`; the live block goes. */
    const interrupted = (describe: (label: string, snapshot: ProgressSnapshot) => string, after: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          const lines = [...running].map(([label, snapshot]) => `${describe(label, snapshot)}\n`).join("")
          running.clear()
          write(`${lines}${after}\n`, now)
        })
      )
    return { update, note, end, finish, interrupted }
  })
