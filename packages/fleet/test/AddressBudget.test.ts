/**
 * The per-address budget in Redis, drawn on by several processes at once: the arrivals of the
 * granted requests, on Redis's own clock, never number more than the limit in any sliding
 * window, and the budget is used (not just respected).
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { root } from "./support/runnerProcess.js"
import { redisUrl } from "./support/services.js"

const child = path.join(root, "packages/fleet/test/support/budgetChild.ts")

const draw = (address: string, limit: number, windowMs: number, count: number, seed: number) =>
  Effect.async<ReadonlyArray<number>, Error>((resume) => {
    const proc = spawn(
      process.execPath,
      [
        "--conditions=@account-bills/source",
        "--import",
        "tsx",
        child,
        redisUrl ?? "",
        address,
        String(limit),
        String(windowMs),
        String(count),
        String(seed)
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
    proc.on("exit", (code) =>
      code === 0 ? resume(Effect.succeed(JSON.parse(out) as Array<number>)) : resume(Effect.fail(new Error(err)))
    )
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

/** The most arrivals in any window `(t - windowMs, t]`. */
const busiest = (arrivals: ReadonlyArray<number>, windowMs: number) => {
  const sorted = [...arrivals].sort((a, b) => a - b)
  let most = 0
  let first = 0
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[first] as number) <= (sorted[last] as number) - windowMs) first++
    most = Math.max(most, last - first + 1)
  }
  return most
}

describe.skipIf(redisUrl === undefined)("AddressBudget.layerRedis", () => {
  it.live(
    "three processes on one address: never more than the limit in any sliding window, and the budget used",
    () =>
      Effect.gen(function* () {
        const limit = 8
        const windowMs = 250
        const count = 40
        const address = `test-${process.pid}-${Date.now()}`
        const all = yield* Effect.all(
          [1, 2, 3].map((seed) => draw(address, limit, windowMs, count, seed)),
          { concurrency: "unbounded" }
        )
        const arrivals = all.flat()
        expect(arrivals).toHaveLength(3 * count)
        expect(busiest(arrivals, windowMs)).toBeLessThanOrEqual(limit)
        // Used, not just respected: 120 requests at 8 per 250 ms take at least 3.5 s; allow for
        // the round trips each grant also holds, and for processes that start apart.
        const sorted = [...arrivals].sort((a, b) => a - b)
        const span = (sorted.at(-1) as number) - (sorted[0] as number)
        expect(span).toBeGreaterThanOrEqual(((3 * count) / limit - 1) * windowMs)
        expect(busiest(arrivals, windowMs)).toBe(limit)
      }),
    60_000
  )
})
