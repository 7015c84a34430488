/**
 * What a walk costs apart from its requests (issue 38 section 3, tenth round): a fleet's steady
 * pass walks each kind for one page, so what a walk costs once is paid per request. Each row runs
 * in this process over sources that answer at once (`BillsApi.fromOperations`), so what is left is
 * the walk's own machinery: its effects and its stream stages. Per run: CPU (`process.cpuUsage`)
 * and what it allocates (V8's sampling heap profiler, objects a GC collected included).
 *
 *   pnpm tsx --conditions=@account-bills/source bench/walkMachinery.ts [runs]
 *
 * Run it on two trees one after the other (a worktree beside this one) to compare them; the
 * allocation is the figure that resolves a change, the CPU moves by a fifth between runs.
 */
import * as fs from "node:fs"
import * as inspector from "node:inspector/promises"
import * as os from "node:os"
import * as path from "node:path"
import { BillsApi, type BillsError, ContractBillsPage, FundingBillsPage } from "@account-bills/core"
import { StoreAccount, StoreLayer, Sync } from "@account-bills/store"
import { Effect, Layer, Redacted, Stream } from "effect"

const runs = Number(process.argv[2] ?? 2_000)
if (!Number.isSafeInteger(runs) || runs < 1)
  throw new Error(`walk machinery: runs must be a whole number, not ${process.argv[2]}`)

const source = BillsApi.fromOperations({
  fetchFunding: () =>
    Effect.succeed(new FundingBillsPage({ items: [], total: 0, hasNextPage: false, page: 1, pageSize: 100 })),
  fetchSpot: () => Effect.succeed([]),
  fetchContract: () => Effect.succeed(new ContractBillsPage({ items: [] }))
})

interface ProfileNode {
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}
const bytesOf = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + bytesOf(child), node.selfSize)

/** CPU µs and KiB allocated per run of `effect`, after a quarter as many runs to warm up. */
const measure = <E, R>(name: string, effect: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < Math.ceil(runs / 4); i++) yield* effect
    const at = process.cpuUsage()
    for (let i = 0; i < runs; i++) yield* effect
    const used = process.cpuUsage(at)
    const session = new inspector.Session()
    session.connect()
    yield* Effect.promise(() =>
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 512,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true
      })
    )
    for (let i = 0; i < runs; i++) yield* effect
    const { profile } = yield* Effect.promise(() => session.post("HeapProfiler.stopSampling"))
    session.disconnect()
    console.log(
      `  ${name.padEnd(52)} ${((used.user + used.system) / runs).toFixed(0).padStart(6)} µs  ${(bytesOf(profile.head as ProfileNode) / runs / 1024).toFixed(0).padStart(5)} KiB`
    )
  })

const main = Effect.gen(function* () {
  const from = Date.now() - 60_000
  console.log(`per run, ${runs} runs each (CPU, allocated):`)
  yield* measure("a call alone (spotBills, checked parameters)", source.spotBills({ after: from, limit: 100 }))
  const walks: Record<string, () => Stream.Stream<unknown, BillsError>> = {
    funding: () => source.streamFundingPages({ from }),
    spot: () => source.streamSpotPages({ from }),
    contract: () => source.streamContractPages({ from })
  }
  for (const [kind, walk] of Object.entries(walks)) {
    // As a sync takes it: a pull for the page, and one that finds the end.
    yield* measure(
      `a one-page ${kind} walk, pulled as a sync pulls it`,
      Effect.scoped(Effect.flatMap(Stream.toPull(walk()), (pull) => Effect.zipRight(pull, Effect.either(pull))))
    )
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-walk-machinery-"))
  const file = path.join(dir, "bills.sqlite")
  const account = StoreAccount.make(Redacted.make("walk-machinery"), "main")
  yield* Effect.gen(function* () {
    for (const kind of ["funding", "spot", "contract"] as const) {
      const sync = Sync.run({ account, kinds: [kind], until: Date.now() + 86_400_000, countStored: false })
      yield* measure(`a steady Sync.run of ${kind} on SQLite (its work included)`, sync)
    }
  }).pipe(
    Effect.provide(
      Layer.merge(StoreLayer.layer({ _tag: "Sqlite", path: file, display: file }), Layer.succeed(BillsApi, source))
    ),
    Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
  )
})

await Effect.runPromise(main)
