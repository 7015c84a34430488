/**
 * `bills export --format koinly|cointracking|bittytax` as a process against the local exchange
 * (linked bills: trades as two legs, transfers with both legs, and an undocumented type now and
 * then): the documented header, flagged bills listed on stderr with their ids, the summary,
 * `--strict` (exit 5, nothing written), refused flags (exit 2), and the same file from a store.
 */
import { FakeExchange } from "@account-bills/core/testing"
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
const env = () => exchangeEnv(server.url, { WEEX_API_SECRET: FakeExchange.defaultCredentials.secret })

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({ rateLimit: false, generate: { seed: 7, funding: 150, spot: 250, linked: true } }).pipe(
      Scope.extend(scope)
    )
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const headers = {
  koinly:
    "Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash",
  cointracking:
    "Type,Buy Amount,Buy Currency,Sell Amount,Sell Currency,Fee,Fee Currency,Exchange,Trade-Group,Comment,Date",
  bittytax:
    "Type,Buy Quantity,Buy Asset,Buy Value in GBP,Sell Quantity,Sell Asset,Sell Value in GBP,Fee Quantity,Fee Asset,Fee Value in GBP,Wallet,Timestamp,Note"
} as const

describe("bills export to a tax tool's file", () => {
  it("writes each tool's documented header, lists flagged bills by id and sums up per coin", async () => {
    const bills = [
      ...(await Effect.runPromise(server.exchange.bills("funding"))),
      ...(await Effect.runPromise(server.exchange.bills("spot")))
    ]
    const unknown = bills.filter((bill) => bill.bizType === "system_issued")
    expect(unknown.length).toBeGreaterThan(0)
    for (const format of ["koinly", "cointracking", "bittytax"] as const) {
      const result = await runCli(["export", "--format", format], env())
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout.split("\n")[0]).toBe(headers[format])
      for (const bill of unknown)
        expect(result.stderr).toMatch(new RegExp(`UNKNOWN TYPE: .*system_issued.*bill ${bill.billId}`))
      expect(result.stderr).toMatch(/^USDT: \d+ bills; events: .*Trade \d+.*; balance changes conserved$/m)
      expect(result.stderr).toMatch(
        new RegExp(
          `${format}: \\d+ events from ${bills.length} bills; \\d+ unpaired, ${unknown.length} of unknown type`
        )
      )
    }
  })

  it("--strict: exit 5 and nothing written when a bill can be written only single-sided", async () => {
    const result = await runCli(["export", "--format", "koinly", "--strict"], env())
    expect(result.code).toBe(5)
    expect(result.stdout).toBe("")
    expect(result.stderr).toMatch(/bills: --strict: \d+ events could be written only single-sided/)
  })

  it("refuses --coin-id and --biz-type (a trade has two coins): exit 2, nothing sent", async () => {
    const before = (await Effect.runPromise(server.exchange.requests)).length
    const result = await runCli(["export", "--format", "bittytax", "--coin-id", "1"], env())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("drop --coin-id and --biz-type")
    expect((await Effect.runPromise(server.exchange.requests)).length).toBe(before)
  })

  it("writes the same file from a store synced from the exchange, offline", async () => {
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-tax-")), "bills.sqlite")
    const sync = await runCli(["sync", "--db", db, "--account", "all"], env())
    expect(sync.code, sync.stderr).toBe(0)
    const live = await runCli(["export", "--format", "cointracking"], env())
    const stored = await runCli(["export", "--format", "cointracking", "--db", db], env())
    expect(stored.code, stored.stderr).toBe(0)
    expect(stored.stdout).toBe(live.stdout)
  })

  it("bills audit reports the events: trades paired, transfers matched, every coin conserved", async () => {
    const result = await runCli(["audit", "--account", "all"], env())
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.trimEnd().split("\n")
    expect(lines).toContainEqual(expect.stringMatching(/^trades: [1-9]\d* paired, 0 legs unpaired$/))
    expect(lines).toContainEqual(expect.stringMatching(/^transfers: [1-9]\d* matched, \d+ legs? unmatched/))
    const conservation = lines.filter((line) => line.startsWith("events of "))
    expect(conservation.length).toBeGreaterThan(0)
    expect(conservation.every((line) => /: conserve the bills' balance change -?[\d.]+$/.test(line))).toBe(true)
    expect(lines[lines.length - 1]).toBe("whole: every chain holds")
  })
})
