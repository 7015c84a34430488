import { FakeExchange } from "@account-bills/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import {
  expectCsvExport,
  expectNdjsonExport,
  expectTaggedCsvExport,
  expectTaggedNdjsonExport
} from "./support/exportCheck.js"
import { exchangeEnv, runCli, startCli } from "./support/runCli.js"

let server: FakeExchangeServerService
let scope: Scope.CloseableScope
const secret = FakeExchange.defaultCredentials.secret

const env = (overrides: Record<string, string> = {}) =>
  exchangeEnv(server.url, { WEEX_API_SECRET: secret, ...overrides })

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({
      generate: { seed: 99, funding: 250, spot: 700, sameMillisecondGroup: { every: 30, size: 4 } }
    }).pipe(Scope.extend(scope))
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const exchangeBills = (account: "funding" | "spot") => Effect.runPromise(server.exchange.bills(account))
const requestCount = () => Effect.runPromise(Effect.map(server.exchange.requests, (log) => log.length))

describe("bills export, as a process against the local exchange", () => {
  for (const account of ["funding", "spot"] as const) {
    it(`exports every ${account} bill as NDJSON, field for field`, async () => {
      const result = await runCli(["export", "--account", account], env())
      expect(result.stderr).toContain(`${account}:`)
      expect(result.code).toBe(0)
      // The exact text the server sent for each bill, strings as strings, each bill once.
      expectNdjsonExport(result.stdout, await exchangeBills(account))
    })
  }

  for (const account of ["funding", "spot"] as const) {
    it(`writes ${account} CSV with a header, an ISO time column and every value exact, to --out`, async () => {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-cli-")), `${account}.csv`)
      const expected = await exchangeBills(account)
      const coin = expected[0]?.coinId ?? 1
      const result = await runCli(
        ["export", "--account", account, "--format", "csv", "--coin-id", String(coin), "--out", out],
        env()
      )
      expect(result.code).toBe(0)
      expect(result.stdout).toBe("")
      // Every column of every row against the raw record (nulls as empty cells).
      expectCsvExport(
        fs.readFileSync(out, "utf8"),
        account,
        expected.filter((bill) => bill.coinId === coin)
      )
    })
  }

  it("--account all exports both accounts in one stream, every bill once under its account, field for field", async () => {
    const before = await requestCount()
    const result = await runCli(["export", "--account", "all", "--concurrency", "3"], env())
    expect(result.code).toBe(0)
    expectTaggedNdjsonExport(result.stdout, {
      funding: await exchangeBills("funding"),
      spot: await exchangeBills("spot")
    })
    // One summary line per account (stderr is not a terminal), each at 100 %.
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines.filter((text) => text.startsWith("funding: 250 bills"))).toHaveLength(1)
    expect(lines.filter((text) => text.startsWith("spot: 700 bills"))).toHaveLength(1)
    expect(await requestCount()).toBeGreaterThan(before)
  })

  it("--account all as CSV: an account column, the spot columns, every cell exact", async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-cli-")), "all.csv")
    const funding = await exchangeBills("funding")
    const spot = await exchangeBills("spot")
    const coin = funding[0]?.coinId ?? 1
    const result = await runCli(
      [
        "export",
        "--account",
        "all",
        "--format",
        "csv",
        "--coin-id",
        String(coin),
        "--biz-type",
        "deposit",
        "--out",
        out
      ],
      env()
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("")
    const selected = (bills: typeof funding) =>
      bills.filter((bill) => bill.coinId === coin && bill.bizType === "deposit")
    expect(selected(funding).length).toBeGreaterThan(0)
    expect(selected(spot).length).toBeGreaterThan(0)
    expectTaggedCsvExport(fs.readFileSync(out, "utf8"), { funding: selected(funding), spot: selected(spot) })
  })

  it("a bizType the docs do not list (airdrop_reward; c2c_buy beyond funding): sent as given with a warning, the exchange's bills of it, exit 0", async () => {
    const funding = await exchangeBills("funding")
    const spot = await exchangeBills("spot")
    const alone = await runCli(["export", "--account", "funding", "--biz-type", "airdrop_reward"], env())
    expect(alone.code).toBe(0)
    expect(alone.stderr.split("\n")[0]).toBe(
      "bills: warning: --biz-type airdrop_reward is not a documented funding bizType (documented: deposit, withdraw, transfer_in, transfer_out, buy, sell, c2c_buy, c2c_sell); it is sent as given, and the exchange may answer with no bills or refuse it"
    )
    const airdrops = funding.filter((bill) => bill.bizType === "airdrop_reward").map((bill) => bill.billId)
    expect(airdrops.length).toBeGreaterThan(0)
    const ids = (stdout: string) =>
      stdout
        .trimEnd()
        .split("\n")
        .map((line) => String((JSON.parse(line) as { billId: unknown }).billId))
    expect(ids(alone.stdout).sort()).toEqual([...airdrops].sort())

    // A documented type of one account, with all: the others are warned about, each gets its own.
    const all = await runCli(["export", "--account", "all", "--biz-type", "c2c_buy", "--max-rps", "50"], env())
    expect(all.code).toBe(0)
    expect(all.stderr.split("\n")[0]).toBe(
      "bills: warning: --biz-type c2c_buy is not a documented bizType of spot or contract; it is sent as given, and the exchange may answer with no bills or refuse it"
    )
    expect(ids(all.stdout).sort()).toEqual(
      [...funding, ...spot]
        .filter((bill) => bill.bizType === "c2c_buy")
        .map((bill) => bill.billId)
        .sort()
    )

    // A documented one warns of nothing.
    const documented = await runCli(["export", "--account", "spot", "--biz-type", "trade_in"], env())
    expect(documented.code).toBe(0)
    expect(documented.stderr).not.toContain("warning")
  })

  it("--concurrency reaches the walk: 1 narrows one window request after request, 8 walks parts of it at once", async () => {
    // Dense enough (60 pages) that the pool cuts the window; the shared exchange is too small for that.
    const dense = await Effect.runPromise(
      FakeExchangeServer.make({ generate: { seed: 5, funding: 0, spot: 6_000 } }).pipe(Scope.extend(scope))
    )
    const befores = async (concurrency: string) => {
      const from = (await Effect.runPromise(dense.exchange.requests)).length
      const result = await runCli(
        ["export", "--account", "spot", "--concurrency", concurrency],
        env({ WEEX_BASE_URL: dense.url })
      )
      expect(result.code).toBe(0)
      expectNdjsonExport(result.stdout, await Effect.runPromise(dense.exchange.bills("spot")))
      const log = (await Effect.runPromise(dense.exchange.requests)).slice(from)
      return log
        .filter((request) => request.operation === "spotBills")
        .map((request) => Number((request.params as { readonly before?: string }).before ?? Number.POSITIVE_INFINITY))
    }
    const descending = (values: ReadonlyArray<number>) =>
      values.every((value, i) => i === 0 || value <= (values[i - 1] ?? 0))
    // One walk of a newest-first exchange only ever lowers `before`.
    expect(descending(await befores("1"))).toBe(true)
    // Several walks start below the first one's edge while it goes on above them.
    expect(descending(await befores("8"))).toBe(false)
  }, 60_000)

  const badFlags: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["an unknown account", ["--account", "margin"], "funding, spot, contract, all"],
    [
      "a bizType with a space",
      ["--account", "spot", "--biz-type", "trade in"],
      '--biz-type takes a business type, a letter then letters, digits or underscores (at most 64), got "trade in"'
    ],
    ["from after to", ["--account", "spot", "--from", "2025-02-01", "--to", "2025-01-01"], "--from"],
    ["coin id 0", ["--account", "spot", "--coin-id", "0"], "--coin-id"],
    ["a negative coin id", ["--account", "funding", "--coin-id", "-4"], "--coin-id"],
    ["max-rps 0", ["--account", "spot", "--max-rps", "0"], "--max-rps"],
    ["an unknown format", ["--account", "spot", "--format", "xml"], "ndjson, csv"],
    ["a time that is not one", ["--account", "spot", "--from", "last tuesday"], "--from"],
    ["a missing account", [], "account"],
    ["concurrency 0", ["--account", "spot", "--concurrency", "0"], "--concurrency"],
    ["concurrency 65", ["--account", "all", "--concurrency", "65"], "--concurrency"],
    [
      "a bizType with a quote, with all",
      ["--account", "all", "--biz-type", "c2c'buy"],
      "--biz-type takes a business type"
    ],
    [
      "an account that is not one, by the flag's name",
      ["--account", "x"],
      '--account takes one of funding, spot, contract, all, got "x"'
    ],
    [
      "a max-rps that is not a number, by the flag's name",
      ["--account", "spot", "--max-rps", "abc"],
      "--max-rps takes a whole number"
    ],
    [
      "a coin id that is not a number, by the flag's name",
      ["--account", "spot", "--coin-id", "x1"],
      "--coin-id takes a whole number"
    ],
    [
      "an epoch in seconds",
      ["--account", "spot", "--from", "1700000000"],
      "looks like epoch seconds (2023-11-14T22:13:20.000Z)"
    ],
    ["a from in the future", ["--account", "spot", "--from", "2999-01-01"], "--from 2999-01-01 is in the future"],
    ["a bizType that is no word", ["--account", "spot", "--biz-type", "über"], "--biz-type takes a business type"]
  ]
  for (const [name, flags, mention] of badFlags) {
    it(`${name}: one line, exit 2, nothing sent`, async () => {
      const before = await requestCount()
      const result = await runCli(["export", ...flags], env())
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
      expect(result.stderr).toContain(mention)
      expect(await requestCount()).toBe(before)
    })
  }

  it("a wrong secret: exit 1, the exchange's code named, the secret nowhere", async () => {
    const wrong = "wrong-secret-Zq81"
    const result = await runCli(["export", "--account", "funding"], env({ WEEX_API_SECRET: wrong }))
    expect(result.code).toBe(1)
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("40009")
    expect(result.stderr).not.toContain("    at ")
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(wrong)
      expect(text).not.toContain(FakeExchange.defaultCredentials.passphrase)
    }
  })

  it("refuses plain http to a host that is not loopback before sending anything", async () => {
    const result = await runCli(["export", "--account", "spot"], env({ WEEX_BASE_URL: "http://192.0.2.10" }))
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("https")
  })

  it("a reader that stops early (| head -1): exit 0, no stack trace, no further requests", async () => {
    const before = await requestCount()
    const whole = await runCli(["export", "--account", "spot", "--out", os.devNull], env())
    expect(whole.code).toBe(0)
    const wholeRequests = (await requestCount()) - before

    const start = await requestCount()
    const run = startCli(["export", "--account", "spot", "--max-rps", "2"], env())
    await run.linesAtLeast(1)
    run.child.stdout?.destroy()
    const result = await run.result
    expect(result.code).toBe(0)
    expect(result.signal).toBeNull()
    expect(result.stderr).not.toContain("EPIPE")
    expect(result.stderr).not.toContain("    at ")
    // The export stopped at the first write that found the pipe closed, well before the end.
    expect((await requestCount()) - start).toBeLessThan(wholeRequests / 2)
  })

  it("Ctrl-C: exit 130 and only whole lines", async () => {
    const run = startCli(["export", "--account", "spot", "--max-rps", "1"], env())
    await run.linesAtLeast(1)
    run.child.kill("SIGINT")
    const result = await run.result
    expect(result.code).toBe(130)
    // Whole lines only, each a bill of the exchange exactly as sent, none twice, not all of them.
    expect(result.stdout.endsWith("\n")).toBe(true)
    const spot = await exchangeBills("spot")
    const written = expectNdjsonExport(result.stdout, spot, { partial: true })
    expect(written).toBeGreaterThan(0)
    expect(written).toBeLessThan(spot.length)
  })

  it("--account all, Ctrl-C: exit 130 and only whole lines, each tagged with its account", async () => {
    const run = startCli(["export", "--account", "all", "--max-rps", "1"], env())
    await run.linesAtLeast(1)
    run.child.kill("SIGINT")
    const result = await run.result
    expect(result.code).toBe(130)
    const both = { funding: await exchangeBills("funding"), spot: await exchangeBills("spot") }
    const written = expectTaggedNdjsonExport(result.stdout, both, { partial: true })
    expect(written).toBeGreaterThan(0)
    expect(written).toBeLessThan(both.funding.length + both.spot.length)
  })

  it("--account all, a reader that stops early: exit 0, no stack trace", async () => {
    const run = startCli(["export", "--account", "all", "--max-rps", "1"], env())
    await run.linesAtLeast(1)
    run.child.stdout?.destroy()
    const result = await run.result
    expect(result.code).toBe(0)
    expect(result.signal).toBeNull()
    expect(result.stderr).not.toContain("EPIPE")
    expect(result.stderr).not.toContain("    at ")
  })
})
