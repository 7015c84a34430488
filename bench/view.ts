/**
 * Section 17: `bills view` at a million bills. A SQLite store of 1,000,000 bills over the three
 * kinds and eight coins, a year long, written through the store's own commits (kept between runs
 * in the system's temp folder, by its size), served in this process, and measured in Debian's
 * headless Chromium: the overview's first paint (navigation start to the overview drawn), a
 * filter change (Apply to the table drawn, and to the chart drawn), a page of the table at the API
 * (the browser's fetch, first, deep and filtered pages), and the points of a year's series.
 */
import {
  type ContractBill,
  ContractBillFromWire,
  type FundingBill,
  FundingBillFromWire,
  type SpotBill,
  SpotBillFromWire
} from "@account-bills/core"
import { BillGenerator, type ContractWireBill } from "@account-bills/core/testing"
import { BillsStore, StoreLayer } from "@account-bills/store"
import { ViewMain } from "@account-bills/view"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { exportToFile } from "../packages/node/src/cli/ViewCommand.js"
// The browser the view's own tests launch, with the same options.
import { launch } from "../packages/view/test/support/chromium.js"

/** The eight coins of the store. */
const coins: ReadonlyArray<BillGenerator.CoinSpec> = [
  ...BillGenerator.defaultCoins,
  { coinId: 5, coinName: "SOL", decimals: 8 },
  { coinId: 6, coinName: "XRP", decimals: 6 },
  { coinId: 9, coinName: "DOGE", decimals: 8 },
  { coinId: 11, coinName: "ADA", decimals: 6 }
]

const year = { from: Date.UTC(2025, 0, 1), to: Date.UTC(2026, 0, 1) - 1 }
const batchSize = 20_000
const commitSize = 2_000

/** The figures of the section. */
export interface ViewFigures {
  readonly bills: number
  readonly buildSeconds: number | undefined
  readonly firstPaintMillis: number
  /** The first page of a fresh browser, on a store not yet read. */
  readonly coldPaintMillis: number
  readonly filterTableMillis: number
  readonly filterChartMillis: number
  readonly pageMillis: {
    readonly first: number
    readonly deep: number
    readonly filtered: number
    readonly bizType: number
  }
  readonly seriesPoints: number
  readonly seriesMillis: number
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** A futures bill as the v2 interface sends it (the local exchange's own v2 answer). */
const v2Record = (bill: ContractWireBill) => ({
  billId: bill.billId,
  coin: bill.coinName,
  symbol: bill.symbol,
  amount: bill.deltaAmount,
  businessType: bill.bizType,
  balance: bill.afterAmount,
  fillFee: bill.fees,
  transferReason: bill.transferReason,
  ctime: bill.cTime
})

/** Writes `bills` bills (a third per kind) into a new store at `db`, each kind's walk finished. */
const build = (db: string, bills: number) =>
  Effect.gen(function* () {
    const store = yield* BillsStore
    yield* store.register({ fingerprint: "bench-view", label: "bench", id: "bench" })
    const generator = BillGenerator.make({ seed: 17, coins })
    const third = Math.floor(bills / 3)
    const counts = { funding: bills - 2 * third, spot: third, contract: third }
    for (const kind of ["funding", "spot", "contract"] as const) {
      yield* store.acquireLease("bench", kind, "bench", 600_000)
      const batches = Math.ceil(counts[kind] / batchSize)
      const span = (year.to - year.from) / batches
      for (let b = 0; b < batches; b++) {
        const count = Math.min(batchSize, counts[kind] - b * batchSize)
        const window = {
          startMillis: Math.round(year.from + b * span),
          endMillis: Math.round(year.from + (b + 1) * span) - 1
        }
        const decoded: ReadonlyArray<FundingBill | SpotBill | ContractBill> =
          kind === "contract"
            ? Schema.decodeUnknownSync(Schema.Array(ContractBillFromWire))(
                BillGenerator.generateContract({
                  count,
                  ...window,
                  seed: 17 + b,
                  coins,
                  firstBillId: BillGenerator.defaultFirstContractBillId + BigInt(b * batchSize * 4)
                }).map(v2Record)
              )
            : kind === "funding"
              ? Schema.decodeUnknownSync(Schema.Array(FundingBillFromWire))(
                  generator.generate("funding", { count, ...window })
                )
              : Schema.decodeUnknownSync(Schema.Array(SpotBillFromWire))(
                  generator.generate("spot", { count, ...window })
                )
        // A page of 2,000: SQLite binds at most 32,766 values to one statement.
        for (let at = 0; at < decoded.length; at += commitSize) {
          const last = b === batches - 1 && at + commitSize >= decoded.length
          yield* store.commitPage({
            account: "bench",
            kind,
            owner: "bench",
            leaseMillis: 600_000,
            bills: decoded.slice(at, at + commitSize),
            cursor: `bench-${b}-${at}`,
            finished: last ? { from: year.from, to: year.to + 1 } : undefined,
            order: "newest-first",
            release: last
          })
        }
      }
      console.error(`  ${kind}: ${counts[kind].toLocaleString("en")} bills written`)
    }
  }).pipe(Effect.provide(StoreLayer.layerFrom(db)))

/** The store of `bills` bills, built once and kept in the temp folder. */
const benchStore = async (
  bills: number
): Promise<{ readonly db: string; readonly buildSeconds: number | undefined }> => {
  const db = path.join(os.tmpdir(), `account-bills-bench-view-${bills}-v1.sqlite`)
  if (fs.existsSync(db)) return { db, buildSeconds: undefined }
  const partial = `${db}.building`
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${partial}${suffix}`, { force: true })
  const started = performance.now()
  await Effect.runPromise(build(partial, bills))
  // Checkpointed and closed: the file alone is the store.
  for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${partial}${suffix}`, { force: true })
  fs.renameSync(partial, db)
  return { db, buildSeconds: (performance.now() - started) / 1000 }
}

/** Runs the section on a store of `bills` bills. */
export const viewBench = async (bills: number): Promise<ViewFigures> => {
  console.error(`  a store of ${bills.toLocaleString("en")} bills (3 kinds, 8 coins, a year) ...`)
  const { db, buildSeconds } = await benchStore(bills)
  const scope = await Effect.runPromise(Scope.make())
  const browser = await launch()
  const context = browser.context
  try {
    const { url } = await Effect.runPromise(
      ViewMain.serve({ db, label: "bench", port: 0, exportToFile, say: () => {} }).pipe(Scope.extend(scope))
    )
    const page = await context.newPage()
    // The first paint, three times on a fresh page each (the first also warms SQLite's cache).
    const paints: Array<number> = []
    for (let i = 0; i < 4; i++) {
      const fresh = await context.newPage()
      await fresh.goto(url)
      await fresh.waitForFunction(() => performance.getEntriesByName("overview-painted").length > 0, null, {
        timeout: 60_000
      })
      paints.push(
        await fresh.evaluate(() => performance.getEntriesByName("overview-painted")[0]?.startTime ?? Number.NaN)
      )
      await fresh.close()
    }
    console.error(`  first paints: ${paints.map((ms) => ms.toFixed(0)).join(", ")} ms`)
    await page.goto(url)
    await page.waitForFunction(() => performance.getEntriesByName("chart-drawn").length > 0, null, { timeout: 60_000 })
    // A filter change: kind and coin chosen, Apply, until the table and the chart are drawn.
    const filterTimes: Array<{ table: number; chart: number }> = []
    for (const [kind, coin] of [
      ["spot", "BTC"],
      ["funding", "ETH"],
      ["contract", "SOL"],
      ["", "XRP"],
      ["spot", ""]
    ] as const) {
      await page.selectOption("#f-kind", kind)
      await page.selectOption("#f-coin", coin)
      filterTimes.push(
        await page.evaluate(
          () =>
            new Promise<{ table: number; chart: number }>((resolve) => {
              const start = performance.now()
              const seen: Record<string, number> = {}
              const observer = new PerformanceObserver((list) => {
                for (const entry of list.getEntries())
                  if (entry.startTime > start) seen[entry.name] = entry.startTime - start
                if (seen["bills-rendered"] !== undefined && seen["chart-drawn"] !== undefined) {
                  observer.disconnect()
                  resolve({ table: seen["bills-rendered"], chart: seen["chart-drawn"] })
                }
              })
              observer.observe({ type: "mark" })
              ;(document.getElementById("filters") as HTMLFormElement).requestSubmit()
            })
        )
      )
    }
    console.error(
      `  filters: ${filterTimes.map((t) => `${t.table.toFixed(0)}/${t.chart.toFixed(0)}`).join(", ")} ms (table/chart)`
    )
    // Pages of the table at the API, as the page fetches them.
    const timed = (query: string) =>
      page.evaluate(async (target) => {
        const times: Array<number> = []
        let next: string | null = null
        for (let i = 0; i < 7; i++) {
          const start = performance.now()
          const response = await fetch(target)
          const body = (await response.json()) as { next: string | null }
          times.push(performance.now() - start)
          next = body.next
        }
        return { times, next }
      }, `${url}api/bills?${query}`)
    const first = await timed("limit=50")
    const deepCursor = `${Date.UTC(2025, 6, 1)}.spot.999999999999999999999`
    const deep = await timed(`limit=50&after=${deepCursor}`)
    const filtered = await timed(`limit=50&kind=spot&coin=BTC&after=${deepCursor}`)
    const bizType = await timed("limit=50&kind=funding&bizType=withdraw&from=2025-03-01")
    const pageMillis = {
      first: median(first.times.slice(1)),
      deep: median(deep.times.slice(1)),
      filtered: median(filtered.times.slice(1)),
      bizType: median(bizType.times.slice(1))
    }
    // The balance series of a year, per coin.
    const series = await page.evaluate(async (target) => {
      const answers: Array<{ points: number; millis: number }> = []
      for (const coin of ["USDT", "BTC", "ETH", "WXT", "SOL", "XRP", "DOGE", "ADA"]) {
        const start = performance.now()
        const body = (await (await fetch(`${target}api/balances?coin=${coin}`)).json()) as {
          series: ReadonlyArray<{ points: ReadonlyArray<unknown> }>
        }
        const millis = performance.now() - start
        for (const one of body.series) answers.push({ points: one.points.length, millis })
      }
      return answers
    }, url)
    return {
      bills,
      buildSeconds,
      firstPaintMillis: median(paints.slice(1)),
      coldPaintMillis: paints[0] ?? Number.NaN,
      filterTableMillis: median(filterTimes.map((t) => t.table)),
      filterChartMillis: median(filterTimes.map((t) => t.chart)),
      pageMillis,
      seriesPoints: Math.max(...series.map((one) => one.points)),
      seriesMillis: median(series.map((one) => one.millis))
    }
  } finally {
    await browser.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
