/**
 * Progress of an export on standard error: one live line for every account being exported
 * when stderr is a terminal, and one summary line per account at its end in any case.
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
 * Where one account's export stands: its counters and the share of its walk done (0 to 1,
 * see ProgressEstimate.ts).
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressSnapshot extends Omit<ProgressCounts, "elapsedMillis"> {
  readonly share: number
}

/** The exchange's rate-limit window. */
const rateWindowMillis = 1_000

const seconds = (millis: number) => (millis / 1000).toFixed(1)

/**
 * The text of a summary line.
 *
 * @since 0.1.0
 * @category utils
 */
export const render = (label: string, counts: ProgressCounts): string => {
  // Over the run plus one window, as the bench measures it: the opening burst of a sliding
  // window is no faster rate (20 requests in 1.2 s is 9 a second, not 17).
  const rate = counts.requests > 0 ? (counts.requests * 1000) / (counts.elapsedMillis + rateWindowMillis) : 0
  return `${label}: ${counts.bills} bills, ${counts.pages} pages, ${counts.requests} requests (${rate.toFixed(1)} req/s), ${seconds(counts.elapsedMillis)} s`
}

/**
 * The live text of one account: its share, what is left by the pace so far, and its counters.
 *
 * @since 0.1.0
 * @category utils
 */
export const renderLive = (label: string, snapshot: ProgressSnapshot, elapsedMillis: number): string =>
  `${label} ${percent(snapshot.share)} ETA ${duration(etaMillis(snapshot.share, elapsedMillis))} (${snapshot.bills} bills, ${snapshot.requests} req)`

/**
 * Progress for the accounts in `labels`, redrawn at most ten times a second, only on a
 * terminal. The accounts share one line, so two walks side by side do not fight over the
 * cursor; an account that finishes gets its own summary line above it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeProgress = (labels: ReadonlyArray<string>, live: boolean) =>
  Effect.map(Clock.currentTimeMillis, (start) => {
    let drawnAt = 0
    const running = new Map<string, ProgressSnapshot>(
      labels.map((label) => [label, { bills: 0, pages: 0, requests: 0, share: 0 }])
    )
    const liveLine = (now: number) =>
      [...running].map(([label, snapshot]) => renderLive(label, snapshot, now - start)).join("  |  ")
    const update = (label: string, snapshot: ProgressSnapshot) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          running.set(label, snapshot)
          if (!live || now - drawnAt < 100) return
          drawnAt = now
          process.stderr.write(`\r\x1b[2K${liveLine(now)}`)
        })
      )
    const finish = (label: string, counts: Omit<ProgressCounts, "elapsedMillis">) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync((): ProgressCounts => {
          running.delete(label)
          const elapsedMillis = now - start
          const rest = live && running.size > 0 ? liveLine(now) : ""
          process.stderr.write(`${live ? "\r\x1b[2K" : ""}${render(label, { ...counts, elapsedMillis })}\n${rest}`)
          return { ...counts, elapsedMillis }
        })
      )
    return { update, finish }
  })
