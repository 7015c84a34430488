/**
 * A `bills fleet run` in a process of its own, through the real `bills` entry point. Its stderr
 * (logfmt) is kept: the pass brackets ("pass begins" / "pass ends", with account and runner)
 * show which runner held which account when.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { billsCommand } from "../../../node/test/support/billsBin.js"
import { testKey } from "./services.js"

const here = path.dirname(fileURLToPath(import.meta.url))
export const root = path.resolve(here, "../../../..")

export interface PassEvent {
  readonly runner: string
  readonly account: string
  readonly event: "begins" | "ends"
  /** Epoch ms, as the runner stamped its log line (as the parent saw it, if it had no stamp). */
  readonly at: number
  /** On the end of a pass that ran to its end: per kind, the requests it sent and the bills it added. */
  readonly funding?: PassFigures | undefined
  readonly spot?: PassFigures | undefined
}

export interface PassFigures {
  readonly requests: number
  readonly added: number
}

/** A kind's figures from the `<kind>_requests` and `<kind>_added` annotations of a log line. */
const figuresOf = (line: string, kind: "funding" | "spot"): PassFigures | undefined => {
  const requests = new RegExp(`\\b${kind}_requests=(\\d+)`).exec(line)
  const added = new RegExp(`\\b${kind}_added=(\\d+)`).exec(line)
  return requests === null || added === null ? undefined : { requests: Number(requests[1]), added: Number(added[1]) }
}

export interface RunnerProcess {
  readonly name: string
  readonly proc: ChildProcess
  readonly events: Array<PassEvent>
  readonly stderr: () => string
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>
}

/** How a runner process runs besides its arguments. */
export interface RunnerOptions {
  /**
   * Run with Debian's libfaketime preloaded at this offset (`-600s`: ten minutes behind). Its
   * pass events are timed when its lines arrive, not by its own stamps.
   */
  readonly skew?: { readonly faketime: string } | undefined
  /** Flags to `node` itself (`--cpu-prof`, which `NODE_OPTIONS` may not carry). */
  readonly nodeArgs?: ReadonlyArray<string> | undefined
  /** The `bills.js` to run, another build's (the upgrade check's); default this tree's (`billsCommand`). */
  readonly entry?: string | undefined
}

/** Debian's libfaketime for threaded programs (package faketime), or undefined. */
export const libfaketime: string | undefined = (() => {
  const lib = "/usr/lib"
  if (!fs.existsSync(lib)) return undefined
  for (const dir of fs.readdirSync(lib)) {
    const candidate = path.join(lib, dir, "faketime", "libfaketimeMT.so.1")
    if (fs.existsSync(candidate)) return candidate
  }
  return undefined
})()

/** Starts `bills fleet args…` with `env` on top of this process's environment. */
export const bills = (
  name: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: RunnerOptions = {}
): RunnerProcess => {
  // Node itself on the sources bundled for this run, or under tsx outside vitest (the bench;
  // packages/node/test/support/billsBin.ts):
  // the `faketime` command would run the runner in a grandchild that a SIGKILL of its parent
  // leaves running, hence the library preloaded by hand.
  const skewed =
    options.skew === undefined || libfaketime === undefined
      ? {}
      : { LD_PRELOAD: libfaketime, FAKETIME: options.skew.faketime, FAKETIME_DONT_RESET: "1" }
  // A runner logs its pass brackets at DEBUG; the events below are read from them.
  const logged = args[0] === "run" && !args.includes("--log-level") ? [...args, "--log-level", "debug"] : args
  const command = options.entry === undefined ? billsCommand() : [options.entry]
  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), ...command, "fleet", ...logged], {
    cwd: root,
    env: { ...process.env, ...env, ...skewed },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const events: Array<PassEvent> = []
  let text = ""
  let partial = ""
  proc.stderr?.on("data", (chunk: Buffer) => {
    const at = Date.now()
    text += chunk.toString()
    const lines = (partial + chunk.toString()).split("\n")
    partial = lines.pop() ?? ""
    for (const line of lines) {
      const message = /message="?pass (begins|ends)/.exec(line)
      const account = /account=("[^"]*"|\S+)/.exec(line)
      if (message === null || account === null) continue
      // The runner's own stamp: lines of different runners reach this process in any order. Not
      // for a runner on a skewed clock: its stamps are what its clock says (the database's, if
      // the runner reads it right), and the test must not trust what it checks; the time the
      // line reached this process is a few milliseconds late at most.
      const stamp = options.skew === undefined ? /timestamp=(\S+)/.exec(line) : null
      const logged = stamp === null ? Number.NaN : Date.parse(stamp[1] ?? "")
      events.push({
        runner: name,
        account: (account[1] ?? "").replace(/^"|"$/g, ""),
        event: message[1] === "begins" ? "begins" : "ends",
        at: Number.isNaN(logged) ? at : logged,
        funding: figuresOf(line, "funding"),
        spot: figuresOf(line, "spot")
      })
    }
  })
  let stdout = ""
  proc.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)))
  return { name, proc, events, stderr: () => text + stdout, exited }
}

/** `bills fleet args…` for the lifetime of the scope: SIGKILLed at its end if still running. */
export const scopedBills = (
  name: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: RunnerOptions = {}
): Effect.Effect<RunnerProcess, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => bills(name, args, env, options)),
    (runner) =>
      Effect.promise(() => {
        if (runner.proc.exitCode === null && runner.proc.signalCode === null) runner.proc.kill("SIGKILL")
        return runner.exited
      })
  )

/** What a test's `bills fleet run` is given: its database and exchange, its ports, its budget and interval. */
export interface RunArguments {
  readonly db: string
  readonly exchangeUrl: string
  /** The cluster's port (`--port`). */
  readonly port: number | undefined
  /** `--metrics-port`: `/metrics`, `/healthz`, `/readyz` served there. */
  readonly metricsPort?: number | undefined
  /** `--redis` and `--ip-rps`: the address budget in Redis. */
  readonly redis?: { readonly url: string; readonly ipRps: number } | undefined
  readonly interval: string
  /** More environment besides the test key and the exchange's URL. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/** `bills fleet run` with the test key against the loopback exchange, for the lifetime of the scope. */
export const scopedRunner = (
  name: string,
  run: RunArguments,
  options: RunnerOptions = {}
): Effect.Effect<RunnerProcess, never, Scope.Scope> =>
  scopedBills(
    name,
    [
      "run",
      "--db",
      run.db,
      "--port",
      String(run.port),
      ...(run.metricsPort === undefined ? [] : ["--metrics-port", String(run.metricsPort)]),
      ...(run.redis === undefined ? [] : ["--redis", run.redis.url, "--ip-rps", String(run.redis.ipRps)]),
      "--interval",
      run.interval
    ],
    { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: run.exchangeUrl, ...run.env },
    options
  )

/** Runs `bills fleet args…` to its end: its exit code and everything it wrote. */
export const billsToEnd = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {}
): Effect.Effect<{ readonly code: number | null; readonly output: string }> =>
  Effect.promise(async () => {
    const proc = bills("cli", args, env)
    const code = await proc.exited
    return { code, output: proc.stderr() }
  })
