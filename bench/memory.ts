/**
 * A client process on its own: walks the first `count` bills of the data set from the local
 * exchange at `url` through `Stream.runDrain` (ours) or the raw baseline, and prints one JSON
 * line: bills, requests, time, and this process's peak RSS. Ours walks with the default
 * concurrency (8), so the pool of walks and its reorder buffer are measured too. The exchange runs in another
 * process (bench/server.ts), so the figures are the client's alone.
 *
 *   node --import tsx bench/memory.ts <url> <count> [ours|raw]
 */
import { BillsApi, defaultConcurrency } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { clientLayer, makeRawWalker, windowOf } from "./client.js"

const [url, countText, kind = "ours"] = process.argv.slice(2)
if (url === undefined || countText === undefined) {
  console.error("usage: bench/memory.ts <url> <count> [ours|raw]")
  process.exit(2)
}
const count = Number(countText)

let peakRss = process.memoryUsage.rss()
let peakHeap = process.memoryUsage().heapUsed
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
}, 10)
const baselineRss = peakRss

const drainOurs = async (): Promise<number> => {
  let bills = 0
  await Effect.runPromise(
    Effect.flatMap(BillsApi, (api) =>
      Stream.runDrain(
        // Counted per chunk, so the count adds nothing per bill.
        // Concurrency on, as a user gets it: the reorder buffer is part of what must stay flat.
        Stream.mapChunks(api.streamSpotBills({ ...windowOf(count), concurrency: defaultConcurrency }), (chunk) => {
          bills += chunk.length
          return chunk
        })
      )
    ).pipe(Effect.provide(Layer.fresh(clientLayer(url))))
  )
  return bills
}

const drainRaw = async (): Promise<number> => {
  const raw = makeRawWalker(url)
  const result = await raw.walk(count)
  await raw.dispose()
  return result.bills
}

const started = performance.now()
const cpuBefore = process.cpuUsage()
const bills = kind === "raw" ? await drainRaw() : await drainOurs()
const millis = performance.now() - started
const cpu = process.cpuUsage(cpuBefore)
clearInterval(sampler)
peakRss = Math.max(peakRss, process.memoryUsage.rss())

console.log(
  JSON.stringify({
    kind,
    count,
    bills,
    millis,
    cpuMillis: (cpu.user + cpu.system) / 1000,
    baselineRssMB: baselineRss / 2 ** 20,
    peakRssMB: peakRss / 2 ** 20,
    peakHeapMB: peakHeap / 2 ** 20,
    maxRssMB: process.resourceUsage().maxRSS / 1024
  })
)
