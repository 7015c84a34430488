/**
 * Reading a store offline, as a user meets it: a mistyped path creates nothing and says so, and
 * a store whose sync was interrupted says what it holds and stops with exit 4 unless `--partial`.
 */
import { FakeFault } from "@account-bills/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { exchangeEnv, runCli } from "./support/runCli.js"

let server: FakeExchangeServerService
let scope: Scope.CloseableScope

const env = (overrides: Record<string, string> = {}) => exchangeEnv(server.url, overrides)

/** No exchange listens there: what runs against it runs offline or fails. */
const offline = { WEEX_BASE_URL: "http://127.0.0.1:9" }

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "bills-store-read-"))

const lines = (text: string) => (text === "" ? [] : text.trimEnd().split("\n"))

const iso = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/.source

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({
      rateLimit: false,
      generate: { seed: 2_106, funding: 450, spot: 900, sameMillisecondGroup: { every: 30, size: 4 } }
    }).pipe(Scope.extend(scope))
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("reading a store offline", () => {
  it("a mistyped store path creates nothing: one line saying there is no store there, exit 1", async () => {
    const dir = tempDir()
    const nope = path.join(dir, "nope.sqlite")
    for (const args of [
      ["export", "--account", "spot", "--db", nope],
      ["audit", "--account", "all", "--db", nope]
    ]) {
      const result = await runCli(args, env(offline))
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe(
        `bills: no store at ${nope}: the file does not exist; check the path, or run a sync to create one there\n`
      )
    }
    // No nope.sqlite, -wal or -shm left behind.
    expect(fs.readdirSync(dir)).toEqual([])
  })

  const postgresUrl = process.env.ACCOUNT_BILLS_PG_URL
  it.skipIf(postgresUrl === undefined || postgresUrl === "")(
    "a PostgreSQL database that does not exist is no store either: one line, exit 1",
    async () => {
      const url = new URL(postgresUrl ?? "")
      url.pathname = `/ab_missing_${process.pid}`
      const said = `bills: no store at ${url}: the PostgreSQL database does not exist; create it on the server (createdb), then sync into it\n`
      const result = await runCli(["export", "--account", "spot", "--db", url.toString()], env(offline))
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe(said)
      // A sync, which cannot create a PostgreSQL database, says it in the same words.
      const sync = await runCli(["sync", "--db", url.toString()], env())
      expect(sync.code).toBe(1)
      expect(sync.stderr).toBe(said)
    }
  )

  it("after an interrupted sync, export and audit say what the store holds and exit 4; with --partial they read it and exit 0", async () => {
    const db = path.join(tempDir(), "bills.sqlite")
    const funding = await runCli(["sync", "--db", db, "--account", "funding", "--max-rps", "50"], env())
    expect(funding.code).toBe(0)
    // The spot sync stops at its fourth request, on an error that is not retried; the requests
    // after it fail too, since the walks beside it may have sent theirs already, and on a busy
    // machine those could otherwise bring every bill before the sync stops.
    await Effect.runPromise(
      server.exchange.injectFaults(
        Array.from({ length: 30 }, (_, i) => ({
          nth: 4 + i,
          operation: "spotBills" as const,
          fault: FakeFault.Code({ status: 400, code: "40017", msg: "parameter error" })
        }))
      )
    )
    const interrupted = await runCli(["sync", "--db", db, "--account", "spot", "--max-rps", "50"], env())
    expect(interrupted.code).toBe(1)

    const unfinished = new RegExp(
      `^bills: the store ${db} holds part of the history: spot: no sync into the store has finished \\((\\d+) bills held so far\\); run bills sync to finish it, or add --partial to read what it holds$`
    )
    const spot = await runCli(["export", "--account", "spot", "--db", db], env(offline))
    expect(spot.code).toBe(4)
    expect(spot.stdout).toBe("")
    expect(lines(spot.stderr)).toHaveLength(1)
    const held = Number(lines(spot.stderr)[0]?.match(unfinished)?.[1])
    expect(held).toBeGreaterThan(0)
    expect(held).toBeLessThan(900)

    const partial = await runCli(["export", "--account", "spot", "--db", db, "--partial"], env(offline))
    expect(partial.code).toBe(0)
    expect(lines(partial.stdout)).toHaveLength(held)
    // What the store holds comes first; the export's own summary follows.
    expect(lines(partial.stderr)[0]).toBe(`spot: no sync into the store has finished (${held} bills held so far)`)

    // The kind whose sync finished reads as before, and says which window it holds.
    const whole = await runCli(["export", "--account", "funding", "--db", db], env(offline))
    expect(whole.code).toBe(0)
    expect(lines(whole.stdout)).toHaveLength(450)
    expect(lines(whole.stderr)[0]).toMatch(
      new RegExp(`^funding: the store holds every bill up to ${iso} \\(450 bills\\)$`)
    )

    const audit = await runCli(["audit", "--account", "all", "--db", db], env(offline))
    expect(audit.code).toBe(4)
    expect(audit.stdout).toBe("")
    // The futures account, never synced into this store, is said and left out; then the refusal.
    expect(lines(audit.stderr)).toEqual([
      "contract: the store holds no futures account bills (no sync of it has run); reading funding and spot",
      expect.stringMatching(/^bills: the store .* holds part of the history: spot: no sync into the store has finished/)
    ])

    const audited = await runCli(["audit", "--account", "all", "--db", db, "--partial"], env(offline))
    expect(audited.code).toBe(0)
    const report = lines(audited.stdout)
    expect(report[1]).toMatch(new RegExp(`^funding: the store holds every bill up to ${iso} \\(450 bills\\)$`))
    expect(report[2]).toBe(`spot: no sync into the store has finished (${held} bills held so far)`)

    // Run again, the sync finishes, and the store reads as whole.
    await Effect.runPromise(server.exchange.clearFaults)
    const resumed = await runCli(["sync", "--db", db, "--account", "spot", "--max-rps", "50"], env())
    expect(resumed.code).toBe(0)
    const after = await runCli(["audit", "--account", "all", "--db", db], env(offline))
    expect(after.code).toBe(0)
    expect(after.stdout).toContain("whole: every chain holds")
    expect(lines(after.stdout)[2]).toMatch(
      new RegExp(`^spot: the store holds every bill up to ${iso} \\(900 bills\\)$`)
    )
  }, 300_000)
})

describe("reading one account of a store by its label", () => {
  it("--label chooses the account; two labels of one key without it: one line naming them, exit 1", async () => {
    const db = path.join(tempDir(), "two.sqlite")
    for (const label of ["desk-a", "desk-b"]) {
      const synced = await runCli(["sync", "--db", db, "--account", "funding", "--label", label], env())
      expect(synced.code).toBe(0)
    }
    const chosen = await runCli(["export", "--account", "funding", "--db", db, "--label", "desk-b"], env(offline))
    expect(chosen.code).toBe(0)
    expect(lines(chosen.stdout)).toHaveLength(450)
    const audited = await runCli(["audit", "--account", "funding", "--db", db, "--label", "desk-a"], env(offline))
    expect(audited.code).toBe(0)
    const unknown = await runCli(["export", "--account", "funding", "--db", db, "--label", "desk-c"], env(offline))
    expect(unknown.code).toBe(1)
    expect(lines(unknown.stderr)).toEqual([expect.stringContaining('it holds no account labelled "desk-c"')])
    const ambiguous = await runCli(["export", "--account", "funding", "--db", db], env(offline))
    expect(ambiguous.code).toBe(1)
    expect(ambiguous.stderr).toContain("several labels (desk-a, desk-b); choose one with --label")
    const withoutDb = await runCli(["export", "--account", "funding", "--label", "desk-a"], env(offline))
    expect(withoutDb.code).toBe(2)
    expect(withoutDb.stderr).toBe("bills: --label chooses an account of a store: give the store with --db\n")
  }, 300_000)
})
