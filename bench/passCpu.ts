/**
 * What a fleet pass costs in CPU (bench/run.ts section 15, issue 38 section 3): one `bills fleet
 * run` process, its budget in Redis, against the loopback fleet exchange with no address limit,
 * so that the CPU sets the pace. Per contender (this checkout, and with `--baseline <commit>` that
 * commit's sources, taking turns, the order turned each round, each run's database dropped after
 * it): the runner's CPU per page of a first sync, and per request of a steady pass (nothing new),
 * with PostgreSQL's CPU per request beside it.
 *
 * CPU time is read from /proc (utime + stime, what `process.cpuUsage` reports inside the process):
 * it is the process's own, whatever else loads the machine. PostgreSQL's is the postmaster's and
 * all its children's, the dead ones included (cutime + cstime). Wall time is only the window.
 * `PASS_CPU_PROFILE=dir` runs the runners under `node --cpu-prof` into that directory.
 * `PASS_CPU_ACCOUNTS=n` passes n accounts (12 with `--quick`, 24 without).
 * `PASS_CPU_NODE_FLAGS="--flag …"` adds a contender: this checkout's runner under those node flags
 * (a heap setting an operator would give it in `NODE_OPTIONS`), taking turns with the others.
 * Needs the servers of .ci/postgres and .ci/redis; without them the section says so and skips.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer, Redacted } from "effect"
import { FleetCipher, FleetDatabase, FleetStatus } from "../packages/fleet/src/index.js"
import * as FleetExchange from "../packages/fleet/test/support/FleetExchange.js"
import { freePorts } from "../packages/fleet/test/support/ports.js"
import { addAccounts, dropDatabase, freshDatabase, testKey } from "../packages/fleet/test/support/services.js"

export interface PassCpuRun {
  readonly contender: string
  readonly accounts: number
  readonly billsPerKind: number
  /** Runner CPU over the first sync (first request to every account current), per request sent. */
  readonly firstSyncCpuPerPageMs: number
  readonly firstSyncRequests: number
  /** The first sync's wall time, first request to every account current, in seconds. */
  readonly firstSyncSeconds: number
  /** Runner CPU per request of the steady fleet (nothing new). */
  readonly steadyCpuPerRequestMs: number
  /** PostgreSQL CPU (every server process) per request of the steady fleet. */
  readonly steadyPgCpuPerRequestMs: number
  readonly steadyRequests: number
  readonly steadySeconds: number
  /** Requests the exchange answered with an error (a 429: the limit tripped), over the whole run. */
  readonly refused: number
  /**
   * Runner CPU per second with no account, before any is added (the cluster's polls, heartbeats
   * and shard locks): what a fleet of many accounts spreads over many more requests.
   */
  readonly idleCpuPerSecondMs: number
  /** The steady runner CPU per request less that idle share: what one more request costs. */
  readonly steadyMarginalCpuPerRequestMs: number
  /**
   * PostgreSQL's CPU per second over the same idle window: the runner's cluster polling and
   * heartbeating, and the server's own background work, with no account to pass.
   */
  readonly idlePgCpuPerSecondMs: number
  /** PostgreSQL's steady CPU per request less that idle share. */
  readonly steadyMarginalPgCpuPerRequestMs: number
}

const day = 86_400_000
const ticks = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "..")
const credentialsOf = (i: number) => ({ apiKey: `cpu-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `cpu-${String(i).padStart(3, "0")}`

/** Fields of /proc/<pid>/stat after the command name. */
const statOf = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return text.slice(text.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** CPU ms of a process (user + system), with its reaped children's when asked. */
export const cpuMsOf = (pid: number, reaped = false): number => {
  const stat = statOf(pid)
  if (stat === undefined) return 0
  // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  const own = Number(stat[11]) + Number(stat[12])
  return ((reaped ? own + Number(stat[13]) + Number(stat[14]) : own) * 1000) / ticks
}

const parentOf = (pid: number): number => Number(statOf(pid)?.[1] ?? 0)

/** CPU ms of the PostgreSQL server: the postmaster, its live children, and those it reaped. */
export const pgCpuMs = (postmaster: number): number => {
  let total = cpuMsOf(postmaster, true)
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry)
    if (Number.isInteger(pid) && pid > 0 && parentOf(pid) === postmaster) total += cpuMsOf(pid)
  }
  return total
}

/** The postmaster's pid: the `postgres` process listening on the URL's port (.ci/postgres passes `-p`). */
export const postmasterOf = (url: string): number => {
  const port = new URL(url).port
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid <= 0) continue
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      const at = args.indexOf("-p")
      if (path.basename(args[0] ?? "") === "postgres" && at >= 0 && args[at + 1] === port) return pid
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`pass CPU bench: no PostgreSQL server process listens on port ${port}`)
}

const until = async (what: string, timeoutMs: number, predicate: () => Promise<boolean> | boolean) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await predicate()) return Date.now()
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`pass CPU bench: timed out waiting for ${what}`)
}

/** How often each value occurs. */
const tally = (values: ReadonlyArray<string>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return counts
}

/** A runner to measure: a bundled `bills` bin, and the node flags it runs under. */
interface Contender {
  readonly name: string
  readonly bin: string
  readonly nodeFlags?: ReadonlyArray<string>
}

/**
 * The `bills` bin of the sources at `at`, bundled as the process tests bundle it (plain node, no
 * tsx loader in the runner's CPU time); removed by the returned function.
 */
export const bundled = async (at: string): Promise<{ readonly bin: string; readonly remove: () => void }> => {
  const before = process.env.BILLS_TEST_BIN
  const setup = (await import(path.join(at, "packages/node/test/support/billsBin.ts"))) as {
    readonly default: () => Promise<() => void>
  }
  const remove = await setup.default()
  const bin = process.env.BILLS_TEST_BIN as string
  if (before === undefined) delete process.env.BILLS_TEST_BIN
  else process.env.BILLS_TEST_BIN = before
  return { bin, remove }
}

/**
 * A checkout of `commit` beside this one, sharing its installed dependencies: the root's store
 * linked, each package's links copied (they point within the checkout, to its own sources).
 */
export const checkout = (commit: string): { readonly at: string; readonly remove: () => void } => {
  const at = fs.mkdtempSync(path.join(root, "bench/.baseline-"))
  execFileSync("git", ["-C", root, "worktree", "add", "--detach", at, commit], { stdio: "ignore" })
  fs.rmSync(path.join(at, "node_modules"), { recursive: true, force: true })
  fs.symlinkSync(path.join(root, "node_modules"), path.join(at, "node_modules"))
  for (const dir of ["bench", ...fs.readdirSync(path.join(root, "packages")).map((p) => `packages/${p}`)]) {
    const modules = path.join(root, dir, "node_modules")
    if (fs.existsSync(modules) && fs.existsSync(path.join(at, dir))) {
      execFileSync("cp", ["-a", modules, path.join(at, dir, "node_modules")])
    }
  }
  return {
    at,
    remove: () => execFileSync("git", ["-C", root, "worktree", "remove", "--force", at], { stdio: "ignore" })
  }
}

const runOnce = (
  pg: string,
  redis: string,
  postmaster: number,
  contender: Contender,
  accounts: number,
  perKind: number,
  steadySeconds: number
): Promise<PassCpuRun> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        // Dropped after the run, and the server checkpointed: the next contender's PostgreSQL CPU
        // would otherwise count this one's autovacuum and dirty buffers.
        const db = yield* Effect.acquireRelease(freshDatabase(pg), (url) => dropDatabase(pg, url))
        const now = Date.now()
        const exchange = yield* FleetExchange.serve({
          perAddress: false,
          accounts: Array.from({ length: accounts }, (_, i) => ({
            credentials: credentialsOf(i),
            generate: {
              seed: 5 + i,
              funding: perKind,
              spot: perKind,
              startMillis: now - 10 * day,
              endMillis: now - 60_000
            }
          }))
        })
        const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
        const [port] = yield* freePorts(1)
        const profile = process.env.PASS_CPU_PROFILE
        const flags = [
          ...(contender.nodeFlags ?? []),
          ...(profile === undefined
            ? []
            : [
                "--cpu-prof",
                `--cpu-prof-dir=${path.resolve(profile)}`,
                `--cpu-prof-name=${contender.name.replace(/[^\w.-]+/g, "_")}.cpuprofile`
              ])
        ]
        const runner: ChildProcess = yield* Effect.acquireRelease(
          Effect.sync(() =>
            spawn(
              process.execPath,
              [
                ...flags,
                contender.bin,
                "fleet",
                "run",
                "--db",
                db,
                "--redis",
                redis,
                "--ip-rps",
                "10000",
                "--port",
                String(port),
                "--interval",
                "3s"
              ],
              {
                cwd: root,
                env: { ...process.env, BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url },
                stdio: ["ignore", "ignore", "ignore"]
              }
            )
          ),
          (proc) =>
            Effect.promise(
              () =>
                new Promise<void>((resolve) => {
                  if (proc.exitCode !== null || proc.signalCode !== null) return resolve()
                  proc.on("exit", () => resolve())
                  // SIGTERM: a clean exit writes the CPU profile.
                  proc.kill("SIGTERM")
                  setTimeout(() => proc.kill("SIGKILL"), 15_000).unref()
                })
            )
        )
        const pid = runner.pid as number
        // Idle: the runner up and joined (its start-up's CPU left out), no account to pass.
        yield* Effect.sleep("10 seconds")
        const [idle0, idlePg0, idleAt0] = [cpuMsOf(pid), pgCpuMs(postmaster), Date.now()]
        yield* Effect.sleep("10 seconds")
        const idleSeconds = (Date.now() - idleAt0) / 1000
        const idleCpuPerSecondMs = (cpuMsOf(pid) - idle0) / idleSeconds
        const idlePgCpuPerSecondMs = (pgCpuMs(postmaster) - idlePg0) / idleSeconds
        yield* addAccounts(accounts, labelOf, credentialsOf).pipe(Effect.provide(database))
        const log = () => exchange.requests().filter((request) => request.operation !== undefined)
        const current = async () => {
          const rows = await Effect.runPromise(Effect.provide(FleetStatus.all, database))
          return (
            rows.length === accounts &&
            rows.every(
              (row) =>
                row.funding.bills === perKind &&
                row.spot.bills === perKind &&
                row.funding.coveredTo !== null &&
                row.spot.coveredTo !== null &&
                row.contract.coveredTo !== null
            )
          )
        }
        // The first sync: from the first request (the runner has started and joined) to current.
        yield* Effect.promise(() => until("the first request", 120_000, () => log().length > 0))
        const [firstCpu, firstAt] = [cpuMsOf(pid), Date.now()]
        const firstCount = log().length
        yield* Effect.promise(() => until("every account current", 600_000, current))
        const firstSyncRequests = log().length - firstCount
        const firstSyncSeconds = (Date.now() - firstAt) / 1000
        const firstSyncCpuPerPageMs = (cpuMsOf(pid) - firstCpu) / Math.max(firstSyncRequests, 1)
        // The steady fleet: two intervals to settle, then the window.
        yield* Effect.sleep("6 seconds")
        const [cpu0, pg0, n0, t0] = [cpuMsOf(pid), pgCpuMs(postmaster), log().length, Date.now()]
        yield* Effect.sleep(`${steadySeconds} seconds`)
        const [cpu1, pg1, n1, t1] = [cpuMsOf(pid), pgCpuMs(postmaster), log().length, Date.now()]
        const steadyRequests = Math.max(n1 - n0, 1)
        // Every account passed in the window, or not: its requests by account and by operation.
        const window = log().slice(n0, n1)
        const byAccount = tally(window.map((request) => request.key))
        const spread = [...byAccount.values()].sort((a, b) => a - b)
        const byOperation = [...tally(window.map((request) => request.operation ?? "?"))]
        console.error(
          `pass CPU bench (${contender.name}): steady window ${((t1 - t0) / 1000).toFixed(1)} s, ${window.length} requests from ${byAccount.size} of ${accounts} accounts (per account: min ${spread[0] ?? 0}, median ${spread[Math.floor(spread.length / 2)] ?? 0}, max ${spread.at(-1) ?? 0}); operations: ${byOperation.map(([operation, n]) => `${operation} ${n}`).join(", ")}`
        )
        const refused = exchange.requests().filter((request) => request.status !== 200)
        if (refused.length > 0) {
          // Counted in a row (goal 0), and said here with the refused request's window as the
          // exchange saw it: arrivals, and when each was signed (ms from its arrival).
          const first = refused[0] as (typeof refused)[number]
          const window = exchange
            .requests()
            .filter(
              (r) =>
                r.key === first.key && r.operation === first.operation && r.at > first.at - 1_100 && r.at <= first.at
            )
            .map((r) => `${r.at - first.at}/${r.signedAt === undefined ? "?" : r.signedAt - first.at}`)
          console.error(
            `pass CPU bench (${contender.name}): ${refused.length} of ${exchange.requests().length} requests answered with an error (${[...new Set(refused.map((r) => `${r.status} ${r.operation ?? "?"}`))].join(", ")}); the first one's window (arrival/signed): ${window.join(" ")}`
          )
        }
        return {
          contender: contender.name,
          accounts,
          billsPerKind: perKind,
          firstSyncCpuPerPageMs,
          firstSyncRequests,
          firstSyncSeconds,
          steadyCpuPerRequestMs: (cpu1 - cpu0) / steadyRequests,
          steadyPgCpuPerRequestMs: (pg1 - pg0) / steadyRequests,
          steadyRequests,
          steadySeconds: (t1 - t0) / 1000,
          refused: refused.length,
          idleCpuPerSecondMs,
          steadyMarginalCpuPerRequestMs: (cpu1 - cpu0 - (idleCpuPerSecondMs * (t1 - t0)) / 1000) / steadyRequests,
          idlePgCpuPerSecondMs,
          steadyMarginalPgCpuPerRequestMs: (pg1 - pg0 - (idlePgCpuPerSecondMs * (t1 - t0)) / 1000) / steadyRequests
        } satisfies PassCpuRun
      })
    )
  )

/**
 * Runs the bench: this checkout, and `baseline` (a commit) beside it when given, taking turns
 * `rounds` times. Undefined when PostgreSQL or Redis is not there.
 */
export const passCpuBench = async (
  quick: boolean,
  baseline: string | undefined,
  say: (line: string) => void
): Promise<ReadonlyArray<PassCpuRun> | undefined> => {
  const pg = process.env.ACCOUNT_BILLS_PG_URL
  const redis = process.env.ACCOUNT_BILLS_REDIS_URL
  if (!pg || !redis) return undefined
  // `PASS_CPU_ACCOUNTS=n`: a busier runner, its steady requests nearer one another.
  const accounts = Number(process.env.PASS_CPU_ACCOUNTS ?? (quick ? 12 : 24))
  if (!Number.isInteger(accounts) || accounts < 1) {
    throw new Error(
      `pass CPU bench: PASS_CPU_ACCOUNTS must be a whole number of accounts, not ${process.env.PASS_CPU_ACCOUNTS}`
    )
  }
  const nodeFlags = process.env.PASS_CPU_NODE_FLAGS?.split(/\s+/).filter((flag) => flag.length > 0) ?? []
  const perKind = quick ? 1_000 : 2_000
  const steadySeconds = quick ? 15 : 30
  // With a baseline, at least two rounds, the order turned each round (base, this, this, base):
  // a turn later in the machine's load or on a server the other has used is no one's alone.
  const rounds = baseline === undefined && nodeFlags.length === 0 ? (quick ? 1 : 2) : quick ? 2 : 4
  const postmaster = postmasterOf(pg)
  const cleanups: Array<() => void> = []
  try {
    const contenders: Array<Contender> = []
    const mine = await bundled(root)
    cleanups.push(mine.remove)
    const self = { name: "this", bin: mine.bin }
    contenders.push(self)
    if (nodeFlags.length > 0) contenders.push({ name: `this ${nodeFlags.join(" ")}`, bin: mine.bin, nodeFlags })
    if (baseline !== undefined) {
      const tree = checkout(baseline)
      cleanups.push(tree.remove)
      const theirs = await bundled(tree.at)
      cleanups.push(theirs.remove)
      contenders.unshift({ name: `baseline ${baseline}`, bin: theirs.bin })
    }
    const runs: Array<PassCpuRun> = []
    // With a baseline, one turn first whose figures are dropped: the first turns after the
    // servers started read PostgreSQL dearer (3.15 where the later turns read 1.25-1.81).
    if (contenders.length > 1) {
      say("15. pass CPU: a warm-up turn, not counted ...")
      await runOnce(pg, redis, postmaster, self, accounts, perKind, steadySeconds)
    }
    for (let round = 0; round < rounds; round++) {
      for (const contender of round % 2 === 0 ? contenders : [...contenders].reverse()) {
        say(`15. pass CPU: ${contender.name}, round ${round + 1} of ${rounds} ...`)
        runs.push(await runOnce(pg, redis, postmaster, contender, accounts, perKind, steadySeconds))
      }
    }
    return runs
  } finally {
    for (const cleanup of cleanups.reverse()) cleanup()
  }
}
