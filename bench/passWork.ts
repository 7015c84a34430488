/**
 * What one steady fleet pass makes the Effect runtime do (issue 38 section 3, fifth round): one
 * current account passed again and again in this process (`AccountPass.run`, its three kinds,
 * through the real HttpClient pipeline against the loopback fleet exchange in a process of its
 * own, the store on the PostgreSQL of .ci/postgres). Per pass: the fibers forked, the spans made
 * (by name), this process's CPU (`process.cpuUsage`) and what it allocates (V8's sampling heap
 * profiler, the objects a GC collected included); then the same for each stage run alone (the
 * client built, the walks, the requests, the store's statements, the syncs), which ranks them by
 * inclusive cost where a sampled stack cannot (the runtime's continuations lose the caller).
 *
 *   bash .ci/postgres pnpm tsx --conditions=@account-bills/source bench/passWork.ts [passes]
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as inspector from "node:inspector"
import { fileURLToPath } from "node:url"
import { BillsApi, BillsConfig, BillsRateLimiter, Signer } from "@account-bills/core"
import { BillsStore, Sync } from "@account-bills/store"
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Context, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import {
  AccountPass,
  AddressBudget,
  FleetAccounts,
  FleetCipher,
  FleetDatabase,
  FleetMetrics,
  FleetRunner,
  FleetStatus
} from "../packages/fleet/src/index.js"
import * as FleetExchange from "../packages/fleet/test/support/FleetExchange.js"
import { freePorts } from "../packages/fleet/test/support/ports.js"
import { counted, counterSum, Forks, passesEnded } from "../packages/fleet/test/support/runtimeWork.js"
import { addAccounts, freshDatabase, testKey } from "../packages/fleet/test/support/services.js"

const passes = Number(process.argv[2] === "exchange" ? 0 : (process.argv[2] ?? 200))
const keys = { apiKey: "k-work", secret: "s-work", passphrase: "p-work" }
/** The accounts of the in-process runner's fleet (the first is the one the stages pass). */
const fleetSize = 12
const labelOf = (i: number) => (i === 0 ? "work" : `work-${i}`)
const keysOf = (i: number) => (i === 0 ? keys : { apiKey: `k-work-${i}`, secret: `s-${i}`, passphrase: `p-${i}` })

/** The loopback exchange of one account, served until killed; its URL on stdout. */
const serveExchange = (now: number) =>
  Effect.gen(function* () {
    const exchange = yield* FleetExchange.serve({
      perAddress: false,
      accounts: Array.from({ length: fleetSize }, (_, i) => ({
        credentials: keysOf(i),
        rateLimit: false,
        generate: { seed: 9 + i, funding: 150, spot: 150, startMillis: now - 86_400_000, endMillis: now - 60_000 }
      }))
    })
    process.stdout.write(`${exchange.url}\n`)
    return yield* Effect.never
  }).pipe(Effect.scoped)

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

const post = <A>(session: inspector.Session, method: string, params?: object) =>
  new Promise<A>((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as A)))
  )

/** A frame's module: the package (effect's by file), or our source file. */
const moduleOf = (url: string) => {
  const pkg =
    /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(?:dist\/(?:esm|cjs|dts)\/)?(.*)$/.exec(url)
  if (pkg !== null) return pkg[1] === "effect" ? `effect/${pkg[2]?.replace(/\.js$/, "")}` : (pkg[1] as string)
  const ours = /packages\/([^/]+)\/src\/(.*)$/.exec(url)
  if (ours !== null) return `${ours[1]}/${ours[2]}`
  return url === "" ? "(native)" : url.replace(/^.*\//, "")
}

/** V8's sampling heap profile of `n` runs of `effect`, the objects a GC collected included. */
const sampled = <A, E, R>(effect: Effect.Effect<A, E, R>, n: number, interval: number) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const session = new inspector.Session()
      session.connect()
      return session
    }),
    (session) =>
      Effect.gen(function* () {
        yield* Effect.promise(() =>
          post(session, "HeapProfiler.startSampling", {
            samplingInterval: interval,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true
          })
        )
        for (let i = 0; i < n; i++) yield* effect
        const { profile } = yield* Effect.promise(() =>
          post<{ profile: { head: ProfileNode } }>(session, "HeapProfiler.stopSampling")
        )
        return profile.head
      }),
    (session) => Effect.sync(() => session.disconnect())
  )

/** Every node of a profile. */
const nodesOf = (node: ProfileNode): ReadonlyArray<ProfileNode> => [node, ...node.children.flatMap(nodesOf)]

/** The largest entries of a tally, in KiB per pass. */
const printTop = (title: string, tally: Map<string, number>, top: number) => {
  console.log(title)
  for (const [name, size] of [...tally].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${(size / passes / 1024).toFixed(1).padStart(7)}  ${name}`)
  }
}

const main = Effect.gen(function* () {
  const pg = process.env.ACCOUNT_BILLS_PG_URL
  if (!pg) return yield* Effect.dieMessage("pass work: no ACCOUNT_BILLS_PG_URL (run through .ci/postgres)")
  const db = yield* freshDatabase(pg)
  // The exchange in a process of its own, so that its CPU and garbage are not the pass's.
  const exchange = yield* Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly child: ChildProcess }>((resume) => {
      const child = spawn(
        process.execPath,
        [...process.execArgv, fileURLToPath(import.meta.url), "exchange", String(Date.now())],
        { stdio: ["ignore", "pipe", "inherit"] }
      )
      child.stdout?.once("data", (data: Buffer) => resume(Effect.succeed({ url: data.toString().trim(), child })))
    }),
    ({ child }) => Effect.sync(() => child.kill())
  )
  const database = FleetDatabase.layer(db).pipe(Layer.provideMerge(FleetCipher.layer(Redacted.make(testKey))))
  yield* addAccounts(1, labelOf, keysOf).pipe(Effect.provide(database), Effect.orDie)
  yield* Effect.gen(function* () {
    const accounts = yield* FleetAccounts
    const opened = yield* accounts.open("work")
    const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
    const pass = AccountPass.run(opened.account, opened.credentials, perKey, {
      pagesPerPass: 20,
      config: { baseUrl: exchange.url }
    })
    // The first sync, then passes to settle.
    for (let i = 0; i < 51; i++) yield* pass
    const forks = new Forks()
    const spans = new Map<string, number>()
    const countedPass = counted(pass, forks, (span) => spans.set(span.name, (spans.get(span.name) ?? 0) + 1))
    let sent = 0
    for (let i = 0; i < 20; i++) {
      for (const outcome of yield* countedPass) sent += outcome.requests
    }
    console.log(`per steady pass (3 kinds): ${(sent / 20).toFixed(2)} requests, ${forks.count / 20} fibers forked`)
    for (const [name, n] of [...spans].sort((a, b) => b[1] - a[1])) console.log(`  span ${name}: ${n / 20}`)
    const cpu0 = process.cpuUsage()
    const t0 = Date.now()
    for (let i = 0; i < passes; i++) yield* pass
    const cpu = process.cpuUsage(cpu0)
    console.log(
      `CPU per pass ${((cpu.user + cpu.system) / 1000 / passes).toFixed(2)} ms (${passes} passes, ${((Date.now() - t0) / passes).toFixed(1)} ms wall each)`
    )
    /** CPU, allocation and fibers per run of `effect`, `n` runs after 10 to warm up. */
    const measure = <R>(name: string, effect: Effect.Effect<unknown, unknown, R>, n: number) =>
      Effect.gen(function* () {
        for (let i = 0; i < 10; i++) yield* effect
        const forked = new Forks()
        const at = process.cpuUsage()
        for (let i = 0; i < n; i++) yield* Effect.supervised(effect, forked)
        const used = process.cpuUsage(at)
        const bytes = nodesOf(yield* sampled(effect, n, 1024)).reduce((sum, node) => sum + node.selfSize, 0)
        console.log(
          `  ${name.padEnd(58)} ${((used.user + used.system) / 1000 / n).toFixed(2).padStart(6)} ms  ${(bytes / n / 1024).toFixed(0).padStart(6)} KiB  ${(forked.count / n).toFixed(1).padStart(5)} fibers`
        )
      })
    const store = yield* BillsStore
    const apiLayer = BillsApi.layer.pipe(
      Layer.provide(Signer.layer(opened.credentials)),
      Layer.provide(Layer.succeed(BillsRateLimiter, perKey)),
      Layer.provide(BillsConfig.layer({ baseUrl: exchange.url })),
      Layer.provide(Layer.succeed(HttpClient.HttpClient, yield* HttpClient.HttpClient))
    )
    const api = yield* Layer.build(apiLayer)
    const client = Context.get(api, BillsApi)
    const from = Date.now() - 120_000
    const kinds = ["funding", "spot", "contract"] as const
    console.log("stages, per steady pass of three kinds (CPU, allocated, fibers forked):")
    yield* measure("the whole pass (AccountPass.run)", pass, 100)
    yield* measure("the whole pass, no span made (tracer off)", Effect.withTracerEnabled(pass, false), 100)
    yield* measure(
      "the whole pass, no http.client span",
      Effect.updateService(pass, HttpClient.HttpClient, (http) => HttpClient.withTracerDisabledWhen(http, () => true)),
      100
    )
    yield* measure("the client as layers (BillsApi, Signer, config)", Effect.scoped(Layer.build(apiLayer)), 100)
    yield* measure(
      "three walks alone (streams, requests; client built once)",
      Effect.forEach(
        [
          (): Stream.Stream<unknown, unknown> => client.streamFundingPages({ from }),
          (): Stream.Stream<unknown, unknown> => client.streamSpotPages({ from }),
          (): Stream.Stream<unknown, unknown> => client.streamContractPages({ from })
        ],
        (walk) => Stream.runDrain(walk()),
        { concurrency: "unbounded" }
      ),
      100
    )
    yield* measure(
      "three requests alone (fundingBills, spotBills, contractBills)",
      Effect.all(
        [client.fundingBills({ startTime: from }), client.spotBills({ after: from }), client.contractBills({})],
        {
          concurrency: "unbounded"
        }
      ),
      100
    )
    yield* measure(
      "the store alone (lease with state, fenced commit) x3",
      Effect.forEach(kinds, (kind) =>
        Effect.gen(function* () {
          const lease = yield* store.acquireLease("work", kind, "probe", 10_000)
          yield* store.commitPage({
            account: "work",
            kind,
            owner: "probe",
            leaseMillis: 10_000,
            bills: [],
            cursor: "",
            finished: lease.acquired ? lease.state.covered : undefined,
            order: undefined,
            release: true
          })
        })
      ),
      100
    )
    yield* measure(
      "three syncs (Sync.run per kind; client built once)",
      Effect.forEach(
        kinds,
        (kind) =>
          Sync.run({
            account: opened.account,
            kinds: [kind],
            concurrency: 1,
            maxPages: 20,
            lease: "10 seconds",
            countStored: false,
            registered: true
          }),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(api)),
      100
    )
    // A first sync's page, in its parts: a full page of 100 bills requested and decoded, and
    // 100 bills committed with a lease (each run a new account, so that every row is inserted),
    // beside the same with no bill (the difference is the rows' own insert).
    console.log("stages of a first-sync page (CPU, allocated, fibers forked, per page):")
    const dayAgo = Date.now() - 2 * 86_400_000
    const fullPage = client.fundingBills({ startTime: dayAgo, pageSize: 100 })
    const sample = yield* fullPage
    console.log(`  (the page holds ${sample.items.length} funding bills)`)
    yield* measure("a full funding page requested and decoded", fullPage, 100)
    yield* measure(
      "  a page of one bill requested and decoded",
      client.fundingBills({ startTime: dayAgo, pageSize: 1 }),
      100
    )
    let fresh = 0
    const committed = (bills: ReadonlyArray<(typeof sample.items)[number]>) =>
      Effect.gen(function* () {
        const id = `page-${process.pid}-${fresh++}`
        yield* store.register({ fingerprint: id, label: id, id })
        yield* store.acquireLease(id, "funding", "probe", 10_000)
        return yield* store.commitPage({
          account: id,
          kind: "funding",
          owner: "probe",
          leaseMillis: 10_000,
          bills,
          cursor: "c",
          finished: undefined,
          order: undefined
        })
      })
    console.log(`  (a commit of the page inserts ${yield* committed(sample.items)} rows)`)
    yield* measure("100 bills committed (an account registered, its lease taken)", committed(sample.items), 100)
    yield* measure("  the same with no bill", committed([]), 100)
    // The whole of it: a first sync of the funding kind (150 bills, two pages) into a new account.
    yield* measure(
      "a first sync of 150 funding bills, two pages (Sync.run, a new account)",
      Effect.suspend(() => {
        const id = `first-${process.pid}-${fresh++}`
        return Sync.run({
          account: { fingerprint: id, label: id, id },
          kinds: ["funding"],
          concurrency: 1,
          maxPages: 20,
          lease: "10 seconds",
          countStored: false
        })
      }).pipe(Effect.provide(api)),
      50
    )
    const byModule = new Map<string, number>()
    const byFunction = new Map<string, number>()
    let total = 0
    for (const node of nodesOf(yield* sampled(pass, passes, 256))) {
      if (node.selfSize === 0) continue
      total += node.selfSize
      const module = moduleOf(node.callFrame.url)
      byModule.set(module, (byModule.get(module) ?? 0) + node.selfSize)
      const where = `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*node_modules\//, "")}:${node.callFrame.lineNumber}`
      byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize)
    }
    console.log(`allocated per pass: ${(total / passes / 1024).toFixed(1)} KiB`)
    printTop("by the allocating function (KiB per pass, top 30):", byFunction, 30)
    printTop("by the allocating module (KiB per pass, top 25):", byModule, 25)
    const redis = process.env.ACCOUNT_BILLS_REDIS_URL
    if (redis === undefined)
      return console.log("(no ACCOUNT_BILLS_REDIS_URL: the runner's work outside the pass not measured)")
    yield* outside(pg, redis, exchange.url, pass, measure)
  }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
}).pipe(Effect.scoped)

/**
 * The runner's work per steady pass outside \`AccountPass.run\` (issue 38, section 3, seventh
 * round): each stage of its per-pass path that can run alone, measured alone, then a whole runner
 * (\`FleetRunner.layer\`, its budget in Redis, 12 current accounts passed every 3 s) in this
 * process, idle and then steady, with the fibers it forks counted; what the stages alone do not
 * account for is the cluster's part (the next pass's message, its delivery, the reply) and the
 * entity's wiring.
 */
const outside = (
  pg: string,
  redis: string,
  exchangeUrl: string,
  pass: Effect.Effect<ReadonlyArray<AccountPass.KindOutcome>, never, AccountPass.PassServices>,
  measure: <R>(name: string, effect: Effect.Effect<unknown, unknown, R>, n: number) => Effect.Effect<void, unknown, R>
) =>
  Effect.gen(function* () {
    const operations = ["fundingBills", "spotBills", "contractBills"] as const
    const budget = yield* Layer.build(
      AddressBudget.layerRedis(redis, { limit: 10_000, address: `work-${process.pid}` })
    )
    const accounts = yield* FleetAccounts
    console.log("the runner's stages outside the pass, alone (CPU, allocated, fibers forked, per steady pass):")
    yield* measure("the pass with the budget in Redis", Effect.provide(pass, budget), 100)
    yield* measure(
      "the budget alone: a grant and a release per kind",
      Effect.forEach(operations, (operation) => Context.get(budget, AddressBudget).withGrant(operation)(Effect.void)),
      100
    )
    yield* measure(
      "the account opened and claimed, a clean pass recorded",
      Effect.zipRight(
        accounts.open("work", "probe:1"),
        accounts.record("work", { funding: undefined, spot: undefined, contract: undefined }, false)
      ),
      100
    )
    // A whole runner in this process, on a database of its own.
    const db = yield* freshDatabase(pg)
    const [port] = yield* freePorts(1)
    const forks = new Forks()
    const runner = FleetRunner.layer({ db, port, interval: "3 seconds", config: { baseUrl: exchangeUrl } }).pipe(
      Layer.provide(AddressBudget.layerRedis(redis, { limit: 10_000, address: `runner-${process.pid}` })),
      Layer.provide(FleetCipher.layer(Redacted.make(testKey))),
      Layer.orDie
    )
    const database = FleetDatabase.layer(db).pipe(Layer.provideMerge(FleetCipher.layer(Redacted.make(testKey))))
    const running = yield* Effect.forkScoped(Effect.supervised(Layer.launch(runner), forks))
    const cpuMs = () => {
      const used = process.cpuUsage()
      return (used.user + used.system) / 1000
    }
    yield* Effect.sleep("10 seconds")
    const idle0 = [cpuMs(), Date.now()] as const
    yield* Effect.sleep("10 seconds")
    const idlePerSecond = (cpuMs() - idle0[0]) / ((Date.now() - idle0[1]) / 1000)
    yield* addAccounts(fleetSize, labelOf, keysOf).pipe(Effect.provide(database), Effect.orDie)
    const current = Effect.map(
      Effect.provide(FleetStatus.all, database),
      (rows) =>
        rows.length === fleetSize &&
        rows.every(
          (row) =>
            row.funding.bills === 150 &&
            row.spot.bills === 150 &&
            // The futures walk of a new account proves its empty years back to the floor first.
            row.contract.coveredTo !== null &&
            row.funding.coveredTo !== null &&
            row.spot.coveredTo !== null
        )
    )
    while (!(yield* Effect.orDie(current))) yield* Effect.sleep("500 millis")
    yield* Effect.sleep("6 seconds")
    const kinds = ["funding", "spot", "contract"]
    const requests = counterSum(FleetMetrics.requests, "kind", kinds)
    const [cpu0, n0, p0, f0, t0] = [cpuMs(), yield* requests, yield* passesEnded, forks.count, Date.now()]
    yield* Effect.sleep("20 seconds")
    const [cpu1, n1, p1, f1, t1] = [cpuMs(), yield* requests, yield* passesEnded, forks.count, Date.now()]
    yield* Fiber.interrupt(running)
    const steadyPasses = Math.max(p1 - p0, 1)
    const perPass = (cpu1 - cpu0) / steadyPasses
    const idleShare = (idlePerSecond * (t1 - t0)) / 1000 / steadyPasses
    console.log(
      `the whole runner in this process, steady (12 accounts every 3 s, ${((t1 - t0) / 1000).toFixed(1)} s): ` +
        `${steadyPasses} passes, ${((n1 - n0) / steadyPasses).toFixed(2)} requests and ${((f1 - f0) / steadyPasses).toFixed(1)} fibers forked per pass`
    )
    console.log(`  runner CPU per steady pass                      ${perPass.toFixed(2).padStart(6)} ms`)
    console.log(
      `  of which the idle runner's share                ${idleShare.toFixed(2).padStart(6)} ms (${idlePerSecond.toFixed(1)} ms per s idle)`
    )
    console.log(`  less that share                                 ${(perPass - idleShare).toFixed(2).padStart(6)} ms`)
  }).pipe(Effect.scoped)

Effect.runPromise(process.argv[2] === "exchange" ? serveExchange(Number(process.argv[3])) : main).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
