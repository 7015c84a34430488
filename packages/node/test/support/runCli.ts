/**
 * Runs the `bills` program as a separate process, the way a user's script would.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { FakeExchange } from "@account-bills/core/testing"
import { billsCommand } from "./billsBin.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..")

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface CliRun {
  readonly child: ChildProcess
  readonly result: Promise<CliResult>
  /** Resolves once standard output holds at least `count` newlines. */
  readonly linesAtLeast: (count: number) => Promise<void>
  /** Standard output so far. */
  readonly output: () => string
}

export const startCli = (args: ReadonlyArray<string>, env: Record<string, string>): CliRun => {
  // The sources bundled for this run, or under tsx outside vitest (support/billsBin.ts).
  const child = spawn(process.execPath, [...billsCommand(), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const waiters: Array<{ count: number; resolve: () => void }> = []
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    const lines = stdout.split("\n").length - 1
    for (const waiter of waiters.splice(0)) {
      if (lines >= waiter.count) waiter.resolve()
      else waiters.push(waiter)
    }
  })
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  const result = new Promise<CliResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  const linesAtLeast = (count: number) =>
    new Promise<void>((resolve) => {
      if (stdout.split("\n").length - 1 >= count) resolve()
      else waiters.push({ count, resolve })
    })
  return { child, result, linesAtLeast, output: () => stdout }
}

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<CliResult> =>
  startCli(args, env).result

/** The WEEX_* variables that point `bills` at a fake exchange at `url`, with its default credentials. */
export const exchangeEnv = (url: string, overrides: Record<string, string> = {}): Record<string, string> => ({
  WEEX_API_KEY: FakeExchange.defaultCredentials.apiKey,
  WEEX_API_SECRET: FakeExchange.defaultCredentials.secret,
  WEEX_API_PASSPHRASE: FakeExchange.defaultCredentials.passphrase,
  WEEX_BASE_URL: url,
  WEEX_CONTRACT_BASE_URL: url,
  ...overrides
})
