/**
 * The client waiting for its limiter against the client running free (bench/run.ts section 16,
 * issue 38 section 3): the same empty spot pages, sent back to back with the limiter lifted and
 * at the limiter's 10 a second, against the local exchange in a process of its own. CPU time is
 * this process's (`process.cpuUsage`), so the exchange's does not mix in; per request, so the
 * limited run's longer wall time shows only as what waiting itself costs. The goal: no more CPU
 * per request waiting than running free.
 *
 * `LIMITER_WAIT_PROFILE=dir` profiles every measured run with V8's sampling profiler (the
 * inspector, in this process) into `dir/<free|limited>-<round>.cpuprofile`; the sampler's own
 * thread then adds to the CPU figures, so a profiled run's figures are for the profile only.
 */
import { BillsApi } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { writeFile } from "node:fs/promises"
import { Session } from "node:inspector/promises"
import * as path from "node:path"
import { clientLayer, dataSet } from "./client.js"

export interface LimiterWaitRun {
  readonly limited: boolean
  readonly requests: number
  readonly cpuPerRequestMs: number
  readonly seconds: number
}

/** A window before the data set's first bill: every page is empty. */
const empty = { after: dataSet.startMillis - 60_000, before: dataSet.startMillis - 1 }

/**
 * Sends `requests` empty spot pages one after another, limited and free taking turns `rounds`
 * times (after a warm-up of each), and returns every run.
 */
export const limiterWaitBench = async (
  url: string,
  requests: number,
  rounds: number
): Promise<ReadonlyArray<LimiterWaitRun>> => {
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
  const once = async (limited: boolean, count: number, profileAs?: string): Promise<LimiterWaitRun> => {
    const runtime = limited ? runtimes.limited : runtimes.free
    const profiled = session !== undefined && profileAs !== undefined
    if (profiled) await session.post("Profiler.start")
    const cpu = process.cpuUsage()
    const started = performance.now()
    const pages = await runtime.runPromise(
      Effect.flatMap(BillsApi, (api) =>
        Effect.forEach(Array.from({ length: count }), () => api.spotBills(empty), { concurrency: 1 })
      )
    )
    const used = process.cpuUsage(cpu)
    if (profiled && profileDir !== undefined) {
      const { profile } = await session.post("Profiler.stop")
      await writeFile(path.join(profileDir, `${profileAs}.cpuprofile`), JSON.stringify(profile))
    }
    if (pages.some((page) => page.length > 0))
      throw new Error("limiter wait bench: a page that should be empty was not")
    return {
      limited,
      requests: count,
      cpuPerRequestMs: (used.user + used.system) / 1000 / count,
      seconds: (performance.now() - started) / 1000
    }
  }
  try {
    // Warm-up (JIT, connections, the limiter's first window) counts for neither.
    await once(false, 20)
    await once(true, 20)
    const runs: Array<LimiterWaitRun> = []
    for (let round = 0; round < rounds; round++) {
      for (const limited of round % 2 === 0 ? [false, true] : [true, false])
        runs.push(await once(limited, requests, `${limited ? "limited" : "free"}-${round}`))
    }
    return runs
  } finally {
    session?.disconnect()
    await runtimes.free.dispose()
    await runtimes.limited.dispose()
  }
}
