/**
 * The client waiting for its limiter against the client running free (bench/run.ts section 16,
 * issue 38 section 3): the same empty spot pages, sent back to back with the limiter lifted and
 * at the limiter's 10 a second, against the local exchange in a process of its own. CPU time is
 * this process's (`process.cpuUsage`), so the exchange's does not mix in; per request, so the
 * limited run's longer wall time shows only as what waiting itself costs. The goal: no more CPU
 * per request waiting than running free.
 *
 * Beside them, two controls: the free client paced by plain sleeps where the limited run waited
 * and as long (each run's clock records the sleeps of each call shorter than a request's timeout:
 * the limiter's), which is what any wait at these instants costs a process that goes idle and is
 * woken;
 * and the limiter's own CPU per permit whose window is open (no request, no wait), which is
 * what its code adds to each request.
 *
 * `LIMITER_WAIT_PROFILE=dir` profiles every measured run with V8's sampling profiler (the
 * inspector, in this process) into `dir/<mode>-<round>.cpuprofile` and prints each mode's self
 * time per request by where it falls; the sampler's own thread then adds to the CPU figures, so
 * a profiled run's figures are for the profile only.
 */
import { BillsApi, BillsRateLimiter } from "@account-bills/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { writeFile } from "node:fs/promises"
import type { Profiler } from "node:inspector"
import { Session } from "node:inspector/promises"
import * as path from "node:path"
import { clientLayer, dataSet } from "./client.js"

/** Back to back with the limit lifted, at the limiter's 10/s, or lifted and paced by plain sleeps. */
export type LimiterWaitMode = "free" | "limited" | "paced"

export interface LimiterWaitRun {
  readonly mode: LimiterWaitMode
  readonly requests: number
  readonly cpuPerRequestMs: number
  readonly seconds: number
  /** Calls that slept: for the limiter (limited) or before it (paced). */
  readonly waits: number
}

export interface LimiterWaitFigures {
  readonly runs: ReadonlyArray<LimiterWaitRun>
  /** The limiter's own CPU per permit whose window is open, µs (median of three rounds). */
  readonly permitMicros: number
}

/** A window before the data set's first bill: every page is empty. */
const empty = { after: dataSet.startMillis - 60_000, before: dataSet.startMillis - 1 }

/** The default clock, telling `onSleep` how long each sleep asked for is (ms). */
const recordingClock = (onSleep: (millis: number) => void): Clock.Clock => {
  const clock = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => clock.unsafeCurrentTimeMillis(),
    unsafeCurrentTimeNanos: () => clock.unsafeCurrentTimeNanos(),
    currentTimeMillis: clock.currentTimeMillis,
    currentTimeNanos: clock.currentTimeNanos,
    sleep: (duration) => {
      onSleep(Duration.toMillis(duration))
      return clock.sleep(duration)
    }
  }
}

/** Sleeps at least this long are a request's timeout (10 s by default), not the limiter's waits. */
const timeoutSleep = 5_000

/** A `.cpuprofile` as the inspector returns it: the call tree's nodes, and which one each sample hit. */
type CpuProfile = Profiler.Profile

/** Where a frame's self time falls, by its function and script. */
const whereOf = (functionName: string, url: string): string | undefined => {
  if (functionName === "(idle)") return undefined
  if (functionName === "(garbage collector)") return "garbage collection"
  if (url === "") return functionName === "(program)" ? "V8, unattributed" : "native (socket writes and reads, ...)"
  if (url.startsWith("node:")) return "node's own JavaScript"
  if (/\/node_modules\/effect\//.test(url)) return "the effect runtime"
  if (/undici|@effect\/platform/.test(url)) return "undici and @effect/platform"
  if (/BillsRateLimiter|permitRule/.test(url)) return "ours: the limiter"
  if (/packages\/core\/src\//.test(url)) return "ours: the rest of the client"
  return "other packages"
}

/** Self time per request (ms) by where it falls, summed over profiles of `requests` requests each. */
const selfTime = (profiles: ReadonlyArray<CpuProfile>, requests: number): Map<string, number> => {
  const sums = new Map<string, number>()
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
    const samples = profile.samples ?? []
    samples.forEach((id, i) => {
      const frame = nodes.get(id)
      const where = frame === undefined ? undefined : whereOf(frame.functionName, frame.url)
      const micros = profile.timeDeltas?.[i + 1] ?? 0
      if (where !== undefined) sums.set(where, (sums.get(where) ?? 0) + micros / 1000 / requests / profiles.length)
    })
  }
  return sums
}

/** The median of some numbers (0 for none). */
const medianOf = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted.length === 0
    ? 0
    : ((sorted[(sorted.length - 1) >> 1] as number) + (sorted[sorted.length >> 1] as number)) / 2
}

/**
 * The limiter's own CPU per permit whose window is open, µs: `count` permits one after another
 * on a limiter whose window and margin are 0 (so none waits), less the same loop without it.
 */
const permitCost = async (count: number): Promise<number> => {
  const limiter = await Effect.runPromise(BillsRateLimiter.make({ limit: 10, window: 0, margin: 0 }))
  const loop = (body: Effect.Effect<void>) =>
    Effect.forEach(Array.from({ length: count }), () => body, { concurrency: 1, discard: true })
  const cpuOf = async (body: Effect.Effect<void>) => {
    const cpu = process.cpuUsage()
    await Effect.runPromise(loop(body))
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / count
  }
  const rounds: Array<number> = []
  // The first round warms up.
  for (let round = 0; round < 4; round++) {
    const net = (await cpuOf(limiter.take("spotBills"))) - (await cpuOf(Effect.void))
    if (round > 0) rounds.push(net)
  }
  return medianOf(rounds)
}

/**
 * Sends `requests` empty spot pages one after another, free, limited and paced taking turns
 * `rounds` times (after a warm-up of each), and returns every run with the limiter's own cost.
 */
export const limiterWaitBench = async (url: string, requests: number, rounds: number): Promise<LimiterWaitFigures> => {
  const runtimes = {
    free: ManagedRuntime.make(clientLayer(url, false)),
    limited: ManagedRuntime.make(clientLayer(url, true))
  }
  const profileDir = process.env.LIMITER_WAIT_PROFILE
  const session = profileDir === undefined ? undefined : new Session()
  if (session !== undefined) {
    session.connect()
    await session.post("Profiler.enable")
  }
  const profiles: Record<LimiterWaitMode, Array<CpuProfile>> = { free: [], limited: [], paced: [] }
  // What the last limited run slept in each call.
  let waited: ReadonlyArray<number> = []
  const once = async (mode: LimiterWaitMode, count: number, profileAs?: string): Promise<LimiterWaitRun> => {
    const runtime = mode === "limited" ? runtimes.limited : runtimes.free
    const pace = waited
    const slept = Array.from({ length: count }, () => 0)
    let current = 0
    const clock = recordingClock((millis) => {
      if (millis < timeoutSleep) slept[current] = (slept[current] ?? 0) + millis
    })
    const profiled = session !== undefined && profileAs !== undefined
    if (profiled) await session.post("Profiler.start")
    const cpu = process.cpuUsage()
    const started = performance.now()
    const pages = await runtime.runPromise(
      Effect.flatMap(BillsApi, (api) => {
        const call = api.spotBills(empty)
        return Effect.forEach(
          Array.from({ length: count }, (_, i) => i),
          (i) => {
            current = i
            const wait = mode === "paced" ? (pace[i] ?? 0) : 0
            return wait > 0 ? Effect.zipRight(Effect.sleep(Duration.millis(wait)), call) : call
          },
          { concurrency: 1 }
        )
      }).pipe(Effect.withClock(clock))
    )
    const used = process.cpuUsage(cpu)
    if (profiled && profileDir !== undefined) {
      const { profile } = await session.post("Profiler.stop")
      await writeFile(path.join(profileDir, `${profileAs}.cpuprofile`), JSON.stringify(profile))
      profiles[mode].push(profile)
    }
    if (pages.some((page) => page.length > 0))
      throw new Error("limiter wait bench: a page that should be empty was not")
    if (mode === "limited") waited = slept
    return {
      mode,
      requests: count,
      cpuPerRequestMs: (used.user + used.system) / 1000 / count,
      seconds: (performance.now() - started) / 1000,
      waits: slept.filter((ms) => ms > 0).length
    }
  }
  try {
    // Warm-up (JIT, connections, the limiter's first window) counts for none.
    await once("free", 20)
    await once("limited", requests)
    await once("paced", 20)
    const runs: Array<LimiterWaitRun> = []
    for (let round = 0; round < rounds; round++) {
      const order: ReadonlyArray<LimiterWaitMode> =
        round % 2 === 0 ? ["free", "limited", "paced"] : ["paced", "limited", "free"]
      for (const mode of order) runs.push(await once(mode, requests, `${mode}-${round}`))
    }
    if (session !== undefined) {
      const modes = ["free", "limited", "paced"] as const
      const sums = modes.map((mode) => selfTime(profiles[mode], requests))
      const wheres = [...new Set(sums.flatMap((sum) => [...sum.keys()]))]
      console.error(`self time per request, ms (${modes.join(", ")}):`)
      for (const where of wheres.sort((a, b) => (sums[1]?.get(b) ?? 0) - (sums[1]?.get(a) ?? 0)))
        console.error(
          `  ${where.padEnd(40)} ${sums.map((sum) => (sum.get(where) ?? 0).toFixed(2).padStart(6)).join(" ")}`
        )
    }
    return { runs, permitMicros: await permitCost(20_000) }
  } finally {
    session?.disconnect()
    await runtimes.free.dispose()
    await runtimes.limited.dispose()
  }
}
