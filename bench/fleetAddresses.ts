/**
 * The fleet on several egress addresses (bench/run.ts section 11): many small accounts, three
 * `bills fleet run` processes sharing Redis budgets, first on one loopback address and then
 * spread over three (`--local-address`), against the loopback fleet exchange that limits each
 * source address apart at the budget. Per run: accounts brought current per minute, the share of
 * each address's budget used while they were, and the cost of a steady pass (requests per pass
 * and kind when nothing is new), from which the capacity rule follows; on three addresses also
 * the failover after a SIGKILL. Over the same window (the first request to every account current),
 * each process's CPU from /proc (utime + stime; see bench/passCpu.ts): the three runners,
 * PostgreSQL (the postmaster and its children), Redis, and this process, which serves the
 * exchange and polls the status. The runners run the `bills` bin bundled once per bench (as the
 * process tests and the pass CPU bench run it: no tsx loader in their CPU, and an edit of the
 * sources during a run does not reach it); `--baseline <commit>` runs that commit's bundle beside
 * this checkout's, taking turns at each number of addresses. `FLEET_CPU_PROFILE=dir` runs them under `node
 * --cpu-prof` into that directory (stopped with SIGTERM at the end of each run, so that they write
 * it; the runner killed for the failover writes none), with the bundle they ran beside them.
 * Needs the servers of .ci/postgres and .ci/redis; without them the section says so and skips.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer, Redacted } from "effect"
import { FleetCipher, FleetDatabase, FleetStatus } from "../packages/fleet/src/index.js"
import * as FleetExchange from "../packages/fleet/test/support/FleetExchange.js"
import { freePorts } from "../packages/fleet/test/support/ports.js"
import { type RunnerProcess, scopedBills } from "../packages/fleet/test/support/runnerProcess.js"
import { addAccounts, freshDatabase, testKey } from "../packages/fleet/test/support/services.js"
import { bundled, checkout, cpuMsOf, pgCpuMs, postmasterOf } from "./passCpu.js"

/** One process's CPU over the measured window. */
export interface ProcessCpu {
  readonly name: string
  /** CPU seconds per second of wall time (1 = one core busy all the window). */
  readonly perSecond: number
  /** CPU milliseconds per request the exchange received in the window. */
  readonly perRequestMs: number
}

/** Where the CPU went while the accounts were brought current. */
export interface WindowCpu {
  readonly seconds: number
  readonly requests: number
  readonly processes: ReadonlyArray<ProcessCpu>
}

export interface AddressRun {
  /** `this`, or `baseline <commit>`. */
  readonly contender: string
  readonly addresses: ReadonlyArray<string>
  readonly accounts: number
  readonly billsPerAccount: number
  readonly accountsPerMinute: number
  /** Per address: its busiest operation's requests per second over the middle 80 % of them, over the budget. */
  readonly budgetUsed: Readonly<Record<string, number>>
  /** Requests per pass and kind of an account with nothing new, measured over the steady fleet. */
  readonly steadyPass: { readonly funding: number; readonly spot: number }
  /** The kill to the first pass of each of the dead runner's accounts on another runner; three addresses only. */
  readonly failoverSeconds: number | undefined
  readonly rateLimited: number
  readonly cpu: WindowCpu
}

export interface AddressFigures {
  readonly ipRps: number
  readonly intervalSeconds: number
  readonly runs: ReadonlyArray<AddressRun>
  /** The machine's load average (1 min) when each run began. */
  readonly loads: ReadonlyArray<number>
}

const day = 86_400_000
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const ipRps = 10
const intervalSeconds = 3
const credentialsOf = (i: number) => ({ apiKey: `many-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `many-${String(i).padStart(3, "0")}`

/** The redis-server listening on the URL's port (it names itself `redis-server 127.0.0.1:<port>`). */
const redisServerOf = (url: string): number | undefined => {
  const port = new URL(url).port
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid <= 0) continue
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
      if (args.includes("redis-server") && (args.includes(`:${port}`) || args.includes(`--port ${port}`))) return pid
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined
}

/** This process's own CPU ms (the exchange it serves and the bench's polls). */
const ownCpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const until = async (what: string, timeoutMs: number, predicate: () => Promise<boolean> | boolean) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await predicate()) return Date.now()
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`fleet addresses bench: timed out waiting for ${what}`)
}

const fleetRun = (
  pg: string,
  redis: string,
  accounts: number,
  perKind: number,
  addresses: ReadonlyArray<string>,
  failover: boolean,
  contender: string,
  tag: string
): Promise<AddressRun> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const db = yield* freshDatabase(pg)
        const now = Date.now()
        const exchange = yield* FleetExchange.serve({
          perAddress: { limit: ipRps, windowMillis: 1000 },
          accounts: Array.from({ length: accounts }, (_, i) => ({
            credentials: credentialsOf(i),
            generate: {
              seed: 11 + i,
              funding: perKind,
              spot: perKind,
              startMillis: now - 10 * day,
              endMillis: now - 60_000
            }
          }))
        })
        const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
        yield* addAccounts(accounts, labelOf, credentialsOf).pipe(Effect.provide(database))
        const ports = yield* freePorts(3)
        const profile = process.env.FLEET_CPU_PROFILE
        const runners: ReadonlyArray<RunnerProcess> = yield* Effect.forEach([0, 1, 2], (i) =>
          scopedBills(
            `a${i}`,
            [
              "run",
              "--db",
              db,
              "--redis",
              redis,
              "--port",
              String(ports[i]),
              "--interval",
              `${intervalSeconds}s`,
              "--ip-rps",
              String(ipRps),
              "--local-address",
              addresses.join(",")
            ],
            {
              BILLS_FLEET_KEY: testKey,
              WEEX_BASE_URL: exchange.url
            },
            {
              nodeArgs:
                profile === undefined
                  ? undefined
                  : [
                      "--cpu-prof",
                      `--cpu-prof-dir=${path.resolve(profile)}`,
                      `--cpu-prof-name=${tag}-a${i}-${addresses.length}.cpuprofile`
                    ]
            }
          )
        )
        const postmaster = postmasterOf(pg)
        const redisServer = redisServerOf(redis)
        const cpuNow = () => ({
          at: Date.now(),
          runners: runners.map((runner) => cpuMsOf(runner.proc.pid ?? 0)),
          postgres: pgCpuMs(postmaster),
          redis: redisServer === undefined ? 0 : cpuMsOf(redisServer),
          bench: ownCpuMs()
        })
        const current = async () => {
          const rows = await Effect.runPromise(Effect.provide(FleetStatus.all, database))
          return (
            rows.length === accounts &&
            rows.every(
              (row) =>
                row.funding.bills === perKind &&
                row.spot.bills === perKind &&
                row.funding.coveredTo !== null &&
                row.spot.coveredTo !== null
            )
          )
        }
        const log = () => exchange.requests().filter((request) => request.operation !== undefined)
        yield* Effect.promise(() =>
          until("the first request", 120_000, () => log().length > 0).catch((error: Error) => {
            // What the runners said, which is what a runner that never sent anything left to go on.
            throw new Error(
              `${error.message}; the runners said:\n${runners.map((r) => r.stderr().slice(-2_000)).join("\n")}`
            )
          })
        )
        const cpuFrom = cpuNow()
        const done = yield* Effect.promise(() => until("every account current", 900_000, current))
        const cpuTo = cpuNow()
        const sync = log()
        const windowSeconds = (cpuTo.at - cpuFrom.at) / 1000
        const windowRequests = sync.filter((r) => r.at >= cpuFrom.at && r.at < cpuTo.at).length
        const used = (name: string, from: number, to: number): ProcessCpu => ({
          name,
          perSecond: (to - from) / 1000 / windowSeconds,
          perRequestMs: (to - from) / Math.max(windowRequests, 1)
        })
        const cpu: WindowCpu = {
          seconds: windowSeconds,
          requests: windowRequests,
          processes: [
            ...runners.map((runner, i) =>
              used(`runner ${runner.name}`, cpuFrom.runners[i] ?? 0, cpuTo.runners[i] ?? 0)
            ),
            used("PostgreSQL", cpuFrom.postgres, cpuTo.postgres),
            ...(redisServer === undefined ? [] : [used("Redis", cpuFrom.redis, cpuTo.redis)]),
            used("bench (exchange, status polls)", cpuFrom.bench, cpuTo.bench)
          ]
        }
        const accountsPerMinute = (accounts / ((done - (sync[0]?.at ?? done)) / 1000)) * 60
        const budgetUsed = Object.fromEntries(
          addresses.map((address) => {
            const busiest =
              (["fundingBills", "spotBills"] as const)
                .map((operation) => sync.filter((r) => r.address === address && r.operation === operation))
                .sort((a, b) => b.length - a.length)[0] ?? []
            const lo = Math.floor(busiest.length * 0.1)
            const hi = Math.floor(busiest.length * 0.9)
            const span = ((busiest[hi]?.at ?? 0) - (busiest[lo]?.at ?? 0)) / 1000
            return [address, span > 0 ? (hi - lo) / span / ipRps : 0]
          })
        )

        // The steady fleet: every account current; what its passes cost over a few intervals.
        const ends = () => runners.flatMap((runner) => runner.events.filter((event) => event.event === "ends")).length
        yield* Effect.sleep(`${2 * intervalSeconds} seconds`)
        const [from, endsFrom] = [Date.now(), ends()]
        yield* Effect.sleep(`${3 * intervalSeconds} seconds`)
        const [to, endsTo] = [Date.now(), ends()]
        const inSteady = log().filter((r) => r.at >= from && r.at < to)
        const passes = Math.max(1, endsTo - endsFrom)
        const steadyPass = {
          funding: inSteady.filter((r) => r.operation === "fundingBills").length / passes,
          spot: inSteady.filter((r) => r.operation === "spotBills").length / passes
        }

        let failoverSeconds: number | undefined
        if (failover) {
          const victim = runners[0] as RunnerProcess
          const latest = new Map<string, { readonly runner: RunnerProcess; readonly at: number }>()
          for (const runner of runners) {
            for (const event of runner.events) {
              if (event.event === "begins" && (latest.get(event.account)?.at ?? 0) < event.at) {
                latest.set(event.account, { runner, at: event.at })
              }
            }
          }
          const orphans = [...latest].filter(([, last]) => last.runner === victim).map(([account]) => account)
          victim.proc.kill("SIGKILL")
          const killedAt = Date.now()
          const pickedUp = yield* Effect.promise(() =>
            until("the dead runner's accounts picked up", 120_000, () =>
              orphans.every((label) =>
                runners.some(
                  (runner) =>
                    runner !== victim &&
                    runner.events.some((e) => e.account === label && e.event === "begins" && e.at > killedAt)
                )
              )
            )
          )
          failoverSeconds = (pickedUp - killedAt) / 1000
        }
        if (profile !== undefined) {
          // SIGTERM: a clean exit writes the CPU profile.
          yield* Effect.forEach(runners, (runner) =>
            Effect.promise(() => {
              if (runner.proc.exitCode !== null || runner.proc.signalCode !== null) return Promise.resolve(null)
              runner.proc.kill("SIGTERM")
              return runner.exited
            }).pipe(Effect.timeout("20 seconds"), Effect.ignore)
          )
        }
        return {
          contender,
          addresses,
          accounts,
          billsPerAccount: 2 * perKind,
          accountsPerMinute,
          budgetUsed,
          steadyPass,
          failoverSeconds,
          rateLimited: exchange.requests().filter((request) => request.status === 429).length,
          cpu
        } satisfies AddressRun
      })
    )
  )

/**
 * Runs the bench on one address, then on three; with `baseline` (a commit) that commit's runners
 * beside this checkout's, taking turns at each. Undefined when PostgreSQL or Redis is not there.
 */
export const addressBench = async (
  quick: boolean,
  baseline: string | undefined,
  say: (line: string) => void
): Promise<AddressFigures | undefined> => {
  const pg = process.env.ACCOUNT_BILLS_PG_URL
  const redis = process.env.ACCOUNT_BILLS_REDIS_URL
  if (!pg || !redis) return undefined
  const accounts = quick ? 60 : 300
  const perKind = quick ? 150 : 250
  const runs: Array<AddressRun> = []
  const loads: Array<number> = []
  const before = process.env.BILLS_TEST_BIN
  const profile = process.env.FLEET_CPU_PROFILE
  const cleanups: Array<() => void> = []
  try {
    const contenders: Array<{ readonly name: string; readonly tag: string; readonly bin: string }> = []
    const mine = await bundled(root)
    cleanups.push(mine.remove)
    contenders.push({ name: "this", tag: "this", bin: mine.bin })
    if (baseline !== undefined) {
      const tree = checkout(baseline)
      cleanups.push(tree.remove)
      const theirs = await bundled(tree.at)
      cleanups.push(theirs.remove)
      contenders.unshift({ name: `baseline ${baseline}`, tag: "baseline", bin: theirs.bin })
    }
    // The profiles name the bundle's chunks and lines: kept beside them, its `// path` comments
    // map each line to its source module.
    if (profile !== undefined) {
      for (const contender of contenders) {
        fs.cpSync(path.dirname(contender.bin), path.join(path.resolve(profile), `bundle-${contender.tag}`), {
          recursive: true
        })
      }
    }
    for (const addresses of [["127.0.0.2"], ["127.0.0.2", "127.0.0.3", "127.0.0.4"]]) {
      for (const contender of contenders) {
        say(`11. fleet addresses: ${contender.name}, ${accounts} accounts on ${addresses.length} address(es) ...`)
        loads.push(Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]))
        process.env.BILLS_TEST_BIN = contender.bin
        runs.push(
          await fleetRun(pg, redis, accounts, perKind, addresses, addresses.length > 1, contender.name, contender.tag)
        )
      }
    }
  } finally {
    for (const cleanup of cleanups.reverse()) cleanup()
    if (before === undefined) delete process.env.BILLS_TEST_BIN
    else process.env.BILLS_TEST_BIN = before
  }
  return { ipRps, intervalSeconds, runs, loads }
}
