/**
 * Progress of an export on standard error: a live line when stderr is a terminal, and one
 * summary line at the end in any case.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

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

const seconds = (millis: number) => (millis / 1000).toFixed(1)

/**
 * The text of a progress or summary line.
 *
 * @since 0.1.0
 * @category utils
 */
export const render = (label: string, counts: ProgressCounts): string => {
  const rate = counts.elapsedMillis > 0 ? (counts.requests * 1000) / counts.elapsedMillis : 0
  return `${label}: ${counts.bills} bills, ${counts.pages} pages, ${counts.requests} requests (${rate.toFixed(1)} req/s), ${seconds(counts.elapsedMillis)} s`
}

/**
 * A live progress line, redrawn at most ten times a second, only on a terminal.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeProgress = (label: string, live: boolean) =>
  Effect.map(Clock.currentTimeMillis, (start) => {
    let drawnAt = 0
    const update = (counts: Omit<ProgressCounts, "elapsedMillis">) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          if (!live || now - drawnAt < 100) return
          drawnAt = now
          process.stderr.write(`\r\x1b[2K${render(label, { ...counts, elapsedMillis: now - start })}`)
        })
      )
    const finish = (counts: Omit<ProgressCounts, "elapsedMillis">) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          const elapsedMillis = now - start
          process.stderr.write(`${live ? "\r\x1b[2K" : ""}${render(label, { ...counts, elapsedMillis })}\n`)
          return { ...counts, elapsedMillis }
        })
      )
    return { update, finish }
  })
