import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { type CliResult, exchangeEnv, runCli, startCli } from "./support/runCli.js"
import { billsCommand } from "./support/billsBin.js"

let server: FakeExchangeServerService
let scope: Scope.CloseableScope

const env = (overrides: Record<string, string> = {}) => exchangeEnv(server.url, overrides)

/** No exchange listens there: what runs against it runs offline or fails. */
const offline = { WEEX_BASE_URL: "http://127.0.0.1:9" }

const tempStore = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-sync-cli-")), "bills.sqlite")

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({
      rateLimit: false,
      generate: { seed: 404, funding: 450, spot: 900, sameMillisecondGroup: { every: 30, size: 4 } }
    }).pipe(Scope.extend(scope))
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const oneLineFailure = (result: CliResult) => {
  expect(result.code).toBe(1)
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
  expect(result.stderr).toMatch(/^bills: /)
}

describe("bills sync, export --db and audit --db, as processes", () => {
  it("syncs both accounts, then exports and audits from the store offline, byte for byte the exchange's export", async () => {
    const db = tempStore()
    const sync = await runCli(["sync", "--db", db, "--max-rps", "50"], env())
    expect(sync.stderr).toContain("funding: 450 new bills")
    expect(sync.stderr).toContain("spot: 900 new bills")
    expect(sync.code).toBe(0)
    for (const account of ["funding", "spot"] as const) {
      const live = await runCli(["export", "--account", account, "--max-rps", "50"], env())
      const stored = await runCli(["export", "--account", account, "--db", db], env(offline))
      expect(stored.code).toBe(0)
      expect(stored.stdout).toBe(live.stdout)
      expect(stored.stdout.trimEnd().split("\n")).toHaveLength(account === "funding" ? 450 : 900)
    }
    // Both accounts from the store: the same tagged lines as from the exchange. The two walks
    // interleave as their pages arrive, so the lines are compared as a set.
    const liveAll = await runCli(["export", "--account", "all", "--max-rps", "50"], env())
    const storedAll = await runCli(["export", "--account", "all", "--db", db], env(offline))
    expect(storedAll.code).toBe(0)
    const sorted = (text: string) => text.trimEnd().split("\n").sort()
    expect(sorted(storedAll.stdout)).toEqual(sorted(liveAll.stdout))
    expect(sorted(storedAll.stdout)).toHaveLength(1_350)
    const audit = await runCli(["audit", "--account", "all", "--db", db], env(offline))
    expect(audit.stdout).toContain("whole: every chain holds")
    expect(audit.code).toBe(0)
    const again = await runCli(["sync", "--db", db, "--max-rps", "50"], env())
    expect(again.stderr).toContain("funding: 0 new bills in 1 request;")
    expect(again.stderr).toContain("spot: 0 new bills in 1 request;")
  }, 180_000)

  it("a missing WEEX_API_KEY is named with what it is; a bad --overlap by the flag's name, exit 2", async () => {
    const { WEEX_API_KEY: _, ...withoutKey } = env()
    const db = tempStore()
    const missing = await runCli(["sync", "--db", db], withoutKey)
    oneLineFailure(missing)
    expect(missing.stderr).toContain("bills: WEEX_API_KEY is not set: the API key of your WEEX account")
    const overlap = await runCli(["sync", "--db", db, "--overlap", "-1"], env())
    expect(overlap.code).toBe(2)
    expect(overlap.stderr).toBe('bills: --overlap takes a whole number 0 or more, got "-1"\n')
  })

  it("Ctrl-C: what each kind kept and that the same command resumes; it does, to every bill", async () => {
    const db = tempStore()
    const before = (await Effect.runPromise(server.exchange.requests)).length
    const run = startCli(["sync", "--db", db, "--max-rps", "2"], env())
    // Interrupted once both kinds have had pages answered, with most of the history still to read.
    while ((await Effect.runPromise(server.exchange.requests)).length < before + 4) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    run.child.kill("SIGINT")
    const result = await run.result
    expect(result.code).toBe(130)
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines.filter((line) => /^(funding|spot): (interrupted|done), \d+ new bills? kept/.test(line))).toHaveLength(
      2
    )
    expect(lines.at(-1)).toBe(
      "bills: interrupted; what was kept stays kept: run the same command again to resume where it stopped"
    )
    const again = await runCli(["sync", "--db", db, "--max-rps", "50"], env())
    expect(again.code).toBe(0)
    expect(again.stderr).toContain("funding: ")
    expect(again.stderr).toContain("; 450 kept")
    expect(again.stderr).toContain("; 900 kept")
  }, 60_000)

  it("refuses a database URL with a password in one line, without the password", async () => {
    const result = await runCli(["sync", "--db", "postgres://alice:hunter2-secret@127.0.0.1:1/bills"], env())
    oneLineFailure(result)
    expect(result.stderr).toContain("carries a password")
    expect(result.stderr).not.toContain("hunter2")
  })

  it("reports a store path that cannot be opened in one line", async () => {
    const result = await runCli(["sync", "--db", "/nonexistent-dir/for/bills.sqlite"], env())
    oneLineFailure(result)
    expect(result.stderr).toContain("cannot use the store /nonexistent-dir/for/bills.sqlite")
  })

  it("stops on a full disk in one line, keeps what it committed, and the next sync completes the store", async () => {
    const disk = smallDisk()
    const db = path.join(disk ?? path.dirname(tempStore()), "bills.sqlite")
    let full: CliResult
    try {
      full = disk === undefined ? await runLimited(db) : await runCli(["sync", "--db", db, "--max-rps", "50"], env())
      oneLineFailure(full)
      // A real full disk where one can be mounted; else a file size limit, which SQLite reports as an I/O error.
      expect(full.stderr).toMatch(disk === undefined ? /the disk is full|disk I\/O error/ : /the disk is full/)
    } finally {
      if (disk !== undefined) {
        // The store moves, WAL and all, to a disk with room.
        const roomy = path.dirname(tempStore())
        for (const file of fs.readdirSync(disk)) fs.copyFileSync(path.join(disk, file), path.join(roomy, file))
        execFileSync("umount", [disk])
        fs.rmdirSync(disk)
        fs.renameSync(roomy, disk)
      }
    }
    const finish = await runCli(["sync", "--db", db, "--max-rps", "50"], env())
    expect(finish.stderr).toContain("(resumed an interrupted sync, whose earlier runs sent")
    expect(finish.code).toBe(0)
    for (const account of ["funding", "spot"] as const) {
      const stored = await runCli(["export", "--account", account, "--db", db], env(offline))
      const expected = await Effect.runPromise(server.exchange.bills(account))
      expect(new Set(stored.stdout.trimEnd().split("\n"))).toEqual(
        new Set(expected.map((bill) => JSON.stringify(bill)))
      )
      expect(stored.stdout.trimEnd().split("\n")).toHaveLength(expected.length)
    }
  }, 180_000)
})

/** A 300 KiB tmpfs, where this user may mount one (root); undefined elsewhere. */
const smallDisk = (): string | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bills-full-disk-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=300k", "tmpfs", dir], { stdio: "ignore" })
    return dir
  } catch {
    fs.rmdirSync(dir)
    return undefined
  }
}

/** `bills sync` under a file size limit (SIGXFSZ ignored, so writes fail rather than kill). */
const runLimited = (db: string) =>
  new Promise<CliResult>((resolve) => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
    const child = spawn(
      "bash",
      [
        "-c",
        `trap '' XFSZ; ulimit -f 600; exec "${process.execPath}" ${billsCommand()
          .map((arg) => `"${arg}"`)
          .join(" ")} sync --db "${db}" --max-rps 50`
      ],
      { cwd: root, env: { PATH: process.env.PATH ?? "", ...env() }, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
