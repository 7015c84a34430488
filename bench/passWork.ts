/**
 * What one steady fleet pass makes the Effect runtime do (issue 38 section 3, fifth round): one
 * current account passed again and again in this process (`AccountPass.run`, its three kinds,
 * through the real HttpClient pipeline against the loopback fleet exchange, the store on the
 * PostgreSQL of .ci/postgres), and per pass: the fibers forked, the spans made (by name), the
 * runner's CPU (`process.cpuUsage`), and what it allocates (V8's sampling heap profiler, the
 * objects a GC collected included), by module and by the stage of the pass on the stack.
 *
 *   bash .ci/postgres pnpm tsx --conditions=@account-bills/source bench/passWork.ts [passes]
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as inspector from "node:inspector"
import { fileURLToPath } from "node:url"
import { BillsApi, BillsConfig, BillsRateLimiter, Signer } from "@account-bills/core"
import { BillsStore, Sync } from "@account-bills/store"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Context, Effect, Layer, Redacted, Stream, Supervisor, Tracer } from "effect"
import { AccountPass, AddressBudget, FleetAccounts, FleetCipher, FleetDatabase } from "../packages/fleet/src/index.js"
import * as FleetExchange from "../packages/fleet/test/support/FleetExchange.js"
import { addAccounts, freshDatabase, testKey } from "../packages/fleet/test/support/services.js"

const passes = Number(process.argv[2] === "exchange" ? 0 : (process.argv[2] ?? 200))

/** The loopback exchange of one account, served until killed; its URL on stdout. */
const serveExchange = (now: number) =>
  Effect.gen(function* () {
    const exchange = yield* FleetExchange.serve({
      perAddress: false,
      accounts: [
        {
          credentials: keys,
          rateLimit: false,
          generate: { seed: 9, funding: 150, spot: 150, startMillis: now - 86_400_000, endMillis: now - 60_000 }
        }
      ]
    })
    process.stdout.write(`${exchange.url}\n`)
    return yield* Effect.never
  }).pipe(Effect.scoped)
const keys = { apiKey: "k-work", secret: "s-work", passphrase: "p-work" }

/** Counts the fibers forked under it. */
class Forks extends Supervisor.AbstractSupervisor<number> {
  count = 0
  get value() {
    return Effect.sync(() => this.count)
  }
  override onStart() {
    this.count++
  }
}

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

const post = <A>(session: inspector.Session, method: string, params?: object) =>
  new Promise<A>((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as A)))
  )

/** A frame's module: the package, or our source file. */
const moduleOf = (url: string) => {
  const pkg =
    /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(?:dist\/(?:esm|cjs|dts)\/)?(.*)$/.exec(url)
  if (pkg !== null) return pkg[1] === "effect" ? `effect/${pkg[2]?.replace(/\.js$/, "")}` : (pkg[1] as string)
  const ours = /packages\/([^/]+)\/src\/(.*)$/.exec(url)
  if (ours !== null) return `${ours[1]}/${ours[2]}`
  return url === "" ? "(native)" : url.replace(/^.*\//, "")
}

/** The stage of a pass a stack is in: the innermost of ours that names one. */
const stages: ReadonlyArray<readonly [string, RegExp]> = [
  [
    "request pipeline (attempt, envelope, decode, signer)",
    /core\/(internal\/(attempt|envelope|envelopeV[23]|exchangeRequest|fastDecode|requestBody|validate|retry|protocol|clockSync)|Signer|Signature)\b/
  ],
  ["limiter and budget", /core\/BillsRateLimiter|core\/internal\/permitRule|fleet\/AddressBudget/],
  [
    "walk streams (core)",
    /core\/internal\/(spot|funding|contract)(Stream|Walk|Pool|Plan)|core\/internal\/(streams|walk|sentAt)/
  ],
  [
    "store (billsStore, lease)",
    /store\/internal\/(billsStore|leaseHolder|leaseQueries|syncStateQueries|billQueries|accountQueries)/
  ],
  ["sync (Sync, kindWalks)", /store\/(Sync|internal\/kindWalks)/],
  ["BillsApi", /core\/BillsApi/],
  ["pass (AccountPass)", /fleet\/AccountPass/]
]

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
  yield* addAccounts(
    1,
    () => "work",
    () => keys
  ).pipe(Effect.provide(database), Effect.orDie)
  yield* Effect.gen(function* () {
    const accounts = yield* FleetAccounts
    const opened = yield* accounts.open("work")
    const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
    const pass = AccountPass.run(opened.account, opened.credentials, perKey, {
      pagesPerPass: 20,
      config: { baseUrl: exchange.url }
    })
    yield* pass
    for (let i = 0; i < 50; i++) yield* pass
    const forks = new Forks()
    const spans = new Map<string, number>()
    const counted = Effect.tracerWith((tracer) =>
      Effect.withTracer(
        Effect.supervised(pass, forks),
        Tracer.make({
          span: (name, ...rest) => {
            spans.set(name, (spans.get(name) ?? 0) + 1)
            return tracer.span(name, ...rest)
          },
          context: tracer.context
        })
      )
    )
    let sent = 0
    for (let i = 0; i < 20; i++) {
      for (const outcome of yield* counted) sent += outcome.requests
    }
    const requests = sent / 20
    console.log(`per steady pass (3 kinds): ${requests.toFixed(2)} requests, ${forks.count / 20} fibers forked`)
    for (const [name, n] of [...spans].sort((a, b) => b[1] - a[1])) console.log(`  span ${name}: ${n / 20}`)
    const cpu0 = process.cpuUsage()
    const t0 = Date.now()
    for (let i = 0; i < passes; i++) yield* pass
    const cpu = process.cpuUsage(cpu0)
    console.log(
      `CPU per pass ${((cpu.user + cpu.system) / 1000 / passes).toFixed(2)} ms (${passes} passes, ${((Date.now() - t0) / passes).toFixed(1)} ms wall each)`
    )
    /** CPU and allocation per run of `effect`, `n` runs after 10 to warm up. */
    const measure = <R>(name: string, effect: Effect.Effect<unknown, unknown, R>, n: number) =>
      Effect.gen(function* () {
        for (let i = 0; i < 10; i++) yield* effect
        const forked = new Forks()
        const at = process.cpuUsage()
        for (let i = 0; i < n; i++) yield* Effect.supervised(effect, forked)
        const used = process.cpuUsage(at)
        const probe = new inspector.Session()
        probe.connect()
        yield* Effect.promise(() =>
          post(probe, "HeapProfiler.startSampling", {
            samplingInterval: 1024,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true
          })
        )
        for (let i = 0; i < n; i++) yield* effect
        const { profile } = yield* Effect.promise(() =>
          post<{ profile: { head: ProfileNode } }>(probe, "HeapProfiler.stopSampling")
        )
        probe.disconnect()
        let bytes = 0
        const sum = (node: ProfileNode) => {
          bytes += node.selfSize
          for (const child of node.children) sum(child)
        }
        sum(profile.head)
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
    const from = Date.now() - 120_000
    const kinds = ["funding", "spot", "contract"] as const
    console.log("stages, per steady pass of three kinds (CPU, allocated):")
    yield* measure("the whole pass (AccountPass.run)", pass, 100)
    yield* measure("the whole pass, no span made (tracer off)", Effect.withTracerEnabled(pass, false), 100)
    yield* measure(
      "the whole pass, no http.client span",
      Effect.updateService(pass, HttpClient.HttpClient, (client) => HttpClient.withTracerDisabledWhen(client, () => true)),
      100
    )
    yield* measure("the client as layers (BillsApi, Signer, config)", Effect.scoped(Layer.build(apiLayer)), 100)
    yield* measure(
      "three walks alone (streams, requests; client built once)",
      Effect.forEach(
        [
          (a: typeof BillsApi.Service): Stream.Stream<unknown, unknown> => a.streamFundingPages({ from }),
          (a: typeof BillsApi.Service): Stream.Stream<unknown, unknown> => a.streamSpotPages({ from }),
          (a: typeof BillsApi.Service): Stream.Stream<unknown, unknown> => a.streamContractPages({ from })
        ],
        (walk) => Stream.runDrain(walk(Context.get(api, BillsApi))),
        { concurrency: "unbounded" }
      ),
      100
    )
    yield* measure(
      "three requests alone (fundingBills, spotBills, contractBills)",
      Effect.all(
        [
          Context.get(api, BillsApi).fundingBills({ startTime: from }),
          Context.get(api, BillsApi).spotBills({ after: from }),
          Context.get(api, BillsApi).contractBills({})
        ],
        { concurrency: "unbounded" }
      ),
      100
    )
    yield* measure(
      "the store alone (lease with state, fenced commit) x3",
      Effect.forEach(kinds, (kind) =>
        Effect.gen(function* () {
          const lease = yield* store.acquireLease("work", kind, "probe", 10_000)
          const state = lease.acquired ? lease.state : undefined
          yield* store.commitPage({
            account: "work",
            kind,
            owner: "probe",
            leaseMillis: 10_000,
            bills: [],
            cursor: "",
            finished: state?.covered,
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
    const session = new inspector.Session()
    session.connect()
    yield* Effect.promise(() =>
      post(session, "HeapProfiler.startSampling", {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true
      })
    )
    for (let i = 0; i < passes; i++) yield* pass
    const { profile } = yield* Effect.promise(() =>
      post<{ profile: { head: ProfileNode } }>(session, "HeapProfiler.stopSampling")
    )
    session.disconnect()
    const byModule = new Map<string, number>()
    const byStage = new Map<string, number>()
    const byFunction = new Map<string, number>()
    let total = 0
    const walk = (node: ProfileNode, stack: ReadonlyArray<string>) => {
      const here = [...stack, moduleOf(node.callFrame.url)]
      if (node.selfSize > 0) {
        total += node.selfSize
        const self = here.at(-1) as string
        byModule.set(self, (byModule.get(self) ?? 0) + node.selfSize)
        const fn = `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*node_modules\//, "")}:${node.callFrame.lineNumber}`
        byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize)
        let stage = "other (runtime, cluster-free glue)"
        for (let i = here.length - 1; i >= 0 && stage.startsWith("other"); i--) {
          const found = stages.find(([, pattern]) => pattern.test(here[i] as string))
          if (found !== undefined) stage = found[0]
        }
        byStage.set(stage, (byStage.get(stage) ?? 0) + node.selfSize)
      }
      for (const child of node.children) walk(child, here)
    }
    walk(profile.head, [])
    console.log(`allocated per pass: ${(total / passes / 1024).toFixed(1)} KiB`)
    console.log("by the innermost stage of ours on the stack (KiB per pass):")
    for (const [stage, size] of [...byStage].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${(size / passes / 1024).toFixed(1).padStart(7)}  ${stage}`)
    }
    console.log("by the allocating function (KiB per pass, top 30):")
    for (const [name, size] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
      console.log(`  ${(size / passes / 1024).toFixed(1).padStart(7)}  ${name}`)
    }
    console.log("by the allocating module (KiB per pass, top 25):")
    for (const [name, size] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      console.log(`  ${(size / passes / 1024).toFixed(1).padStart(7)}  ${name}`)
    }
  }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
}).pipe(Effect.scoped)

Effect.runPromise(process.argv[2] === "exchange" ? serveExchange(Number(process.argv[3])) : main).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
