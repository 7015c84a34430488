/**
 * The client waiting for its limiter against the client running free (bench/run.ts section 16,
 * issue 38 section 3): the same empty spot pages, sent back to back with the limiter lifted and
 * at the limiter's 10 a second, against the local exchange in a process of its own. CPU time is
 * this process's (`process.cpuUsage`), so the exchange's does not mix in; per request, so the
 * limited run's longer wall time shows only as what waiting itself costs. The goal: no more CPU
 * per request waiting than running free.
 */
import { BillsApi } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
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
  const once = async (limited: boolean, count: number): Promise<LimiterWaitRun> => {
    const runtime = limited ? runtimes.limited : runtimes.free
    const cpu = process.cpuUsage()
    const started = performance.now()
    const pages = await runtime.runPromise(
      Effect.flatMap(BillsApi, (api) =>
        Effect.forEach(Array.from({ length: count }), () => api.spotBills(empty), { concurrency: 1 })
      )
    )
    const used = process.cpuUsage(cpu)
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
      for (const limited of round % 2 === 0 ? [false, true] : [true, false]) runs.push(await once(limited, requests))
    }
    return runs
  } finally {
    await runtimes.free.dispose()
    await runtimes.limited.dispose()
  }
}
