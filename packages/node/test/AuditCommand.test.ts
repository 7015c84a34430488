import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { AuditOutput } from "../src/cli/AuditJson.js"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { exchangeEnv, runCli } from "./support/runCli.js"

let whole: FakeExchangeServerService
let broken: FakeExchangeServerService
let lost: { readonly billId: string; readonly coinId: number }
let scope: Scope.CloseableScope

const env = (server: FakeExchangeServerService) => exchangeEnv(server.url)

const generate = { seed: 31, funding: 150, spot: 300, contract: 120, sameMillisecondGroup: { every: 20, size: 3 } }

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  whole = await Effect.runPromise(FakeExchangeServer.make({ generate }).pipe(Scope.extend(scope)))
  const spot = await Effect.runPromise(whole.exchange.bills("spot"))
  const funding = await Effect.runPromise(whole.exchange.bills("funding"))
  const victim = spot.filter((bill) => bill.coinId === spot[0]?.coinId)[10]
  lost = { billId: victim?.billId ?? "", coinId: victim?.coinId ?? 0 }
  broken = await Effect.runPromise(
    FakeExchangeServer.make({ bills: { funding, spot: spot.filter((bill) => bill !== victim) } }).pipe(
      Scope.extend(scope)
    )
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("bills audit, as a process against the local exchange", () => {
  it("a whole ledger: one line per account and coin, exit 0", async () => {
    const result = await runCli(["audit", "--account", "all"], env(whole))
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split("\n")
    // Without --from the report says what it read in words a person uses.
    expect(lines[0]).toMatch(/^audit of the whole history up to \d{4}-/)
    expect(lines.filter((line) => line.startsWith("funding ") && line.endsWith(": whole")).length).toBeGreaterThan(0)
    expect(lines.filter((line) => line.startsWith("spot ") && line.endsWith(": whole")).length).toBeGreaterThan(0)
    // The futures account names assets and has no coin id: its lines name the asset alone.
    const contract = lines.filter((line) => line.startsWith("contract "))
    expect(contract.length).toBeGreaterThan(0)
    for (const line of contract) expect(line).toMatch(/^contract [A-Z]+: \d+ bills, .*: whole$/)
    expect(lines).toContain("funding count: the exchange counts 150 bills, 150 received")
    expect(lines.some((line) => line.includes("rule after = before + delta"))).toBe(true)
    expect(lines[lines.length - 1]).toBe("whole: every chain holds")
  })

  it("one account and coin, in a window", async () => {
    const result = await runCli(
      ["audit", "--account", "spot", "--coin-id", "1", "--from", "2025-01-01", "--to", "2025-06-01T00:00:00Z"],
      env(whole)
    )
    expect(result.code).toBe(0)
    const coinLines = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("spot ") || line.startsWith("funding "))
    expect(coinLines).toHaveLength(1)
    expect(coinLines[0]).toContain("(1)")
  })

  it("a lost bill: the break is listed with the bills on both sides, exit 3", async () => {
    const result = await runCli(["audit", "--account", "spot"], env(broken))
    expect(result.code).toBe(3)
    expect(result.stdout).toContain("BROKEN: 1 break")
    const breakLine = result.stdout.split("\n").find((line) => line.startsWith("  break between"))
    expect(breakLine).toBeDefined()
    expect(breakLine).not.toContain(lost.billId)
    expect(result.stdout.trimEnd().endsWith("NOT WHOLE")).toBe(true)
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("1 break")
  })

  it("--format json: one object the AuditOutput schema decodes, the same verdict as the text, exit 0 or 3", async () => {
    const decode = (stdout: string) => {
      expect(stdout.endsWith("}\n")).toBe(true)
      expect(stdout.trimEnd().split("\n")).toHaveLength(1)
      return Schema.decodeUnknownSync(Schema.parseJson(AuditOutput), { onExcessProperty: "error" })(stdout)
    }
    const result = await runCli(["audit", "--account", "all", "--format", "json"], env(whole))
    expect(result.code).toBe(0)
    expect(result.stderr).toBe("")
    const output = decode(result.stdout)
    expect(output.whole).toBe(true)
    expect(output.store).toEqual([])
    const funding = output.report.accounts.find((account) => account.account === "funding")
    expect(funding?.bills).toBe(150)
    expect(funding?.total).toBe(150)
    expect(output.report.accounts.find((account) => account.account === "spot")?.bills).toBe(300)
    const contract = output.report.accounts.find((account) => account.account === "contract")?.bills ?? 0
    expect(contract).toBeGreaterThan(0)
    expect(output.events?.bills).toBe(450 + contract)
    expect(output.events?.conserved).toBe(true)
    // Amounts stay exact decimal strings in the JSON.
    const raw = JSON.parse(result.stdout) as { report: { accounts: Array<{ coins: Array<{ lastBalance: unknown }> }> } }
    expect(typeof raw.report.accounts[0]?.coins[0]?.lastBalance).toBe("string")

    const brokenRun = await runCli(["audit", "--account", "spot", "--format", "json"], env(broken))
    expect(brokenRun.code).toBe(3)
    const brokenOutput = decode(brokenRun.stdout)
    expect(brokenOutput.whole).toBe(false)
    const coins = brokenOutput.report.accounts.flatMap((account) => account.coins)
    expect(coins.reduce((sum, coin) => sum + coin.breakCount, 0)).toBe(1)
    expect(coins.find((coin) => coin.breakCount === 1)?.coinId).toBe(lost.coinId)

    // With --coin-id the events are not paired: null, as the text says.
    const oneCoin = await runCli(["audit", "--account", "spot", "--coin-id", "1", "--format", "json"], env(whole))
    expect(oneCoin.code).toBe(0)
    expect(decode(oneCoin.stdout).events).toBeNull()
  })

  const badFlags: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    ["an unknown account", ["--account", "margin"], "all"],
    ["from after to", ["--account", "all", "--from", "2025-02-01", "--to", "2025-01-01"], "--from"],
    ["coin id 0", ["--account", "spot", "--coin-id", "0"], "--coin-id"],
    ["a time that is not one", ["--account", "spot", "--to", "soon"], "--to"]
  ]
  for (const [name, flags, mention] of badFlags) {
    it(`${name}: one line, exit 2`, async () => {
      const result = await runCli(["audit", ...flags], env(whole))
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
      expect(result.stderr).toContain(mention)
    })
  }

  it("a failure: exit 1", async () => {
    const result = await runCli(["audit", "--account", "funding"], { ...env(whole), WEEX_API_SECRET: "wrong" })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("40009")
  })
})
