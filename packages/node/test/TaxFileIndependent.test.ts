/**
 * Checks a tax file with nothing of ours but the `bills` program: it starts the local exchange
 * as a process, exports the raw bills (NDJSON) and the Koinly, CoinTracking and BittyTax files,
 * parses each CSV by hand and adds up, per coin, what each row does to the balances in that
 * tool's convention, with exact decimals; the sums must equal the bills' own changes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { add, conventions, parseCsv, toUnits } from "./support/taxCsv.js"

const bin = process.env.BILLS_TEST_BIN as string
let exchange: ChildProcess
let url = ""

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        WEEX_BASE_URL: url,
        WEEX_API_KEY: "fake-key",
        WEEX_API_SECRET: "fake-secret",
        WEEX_API_PASSPHRASE: "fake-passphrase"
      }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

beforeAll(async () => {
  exchange = spawn(
    process.execPath,
    [bin, "fake-exchange", "--linked", "--seed", "34", "--funding", "300", "--spot", "500", "--rate-limit", "0"],
    { stdio: ["ignore", "pipe", "inherit"] }
  )
  url = await new Promise<string>((resolve) => {
    let text = ""
    exchange.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk
      const found = /listening on (\S+)/.exec(text)
      if (found !== null) resolve(found[1] as string)
    })
  })
}, 60_000)

afterAll(() => {
  exchange.kill("SIGTERM")
})

describe("a tax file, checked with nothing of ours but the bills program", () => {
  it("adds up, per coin and in each tool's convention, to the bills' own balance changes", async () => {
    const raw = await run(["export", "--account", "all"])
    expect(raw.code).toBe(0)
    const bills = raw.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, string>)
    // 800 asked for; the last two-leg movement may add one more.
    expect(bills.length).toBeGreaterThanOrEqual(800)
    // The generator's balances follow after = before + delta, so a bill's change is its delta.
    const expected = new Map<string, bigint>()
    for (const bill of bills) add(expected, bill.coinName as string, toUnits(bill.deltaAmount as string))

    for (const format of ["koinly", "cointracking", "bittytax"]) {
      const file = await run(["export", "--format", format])
      expect(file.code, file.stderr).toBe(0)
      const [header, ...rows] = parseCsv(file.stdout)
      const sums = new Map<string, bigint>()
      for (const cells of rows) {
        conventions[format]?.(Object.fromEntries((header ?? []).map((name, i) => [name, cells[i] ?? ""])), sums)
      }
      for (const coin of new Set([...expected.keys(), ...sums.keys()])) {
        expect([format, coin, sums.get(coin) ?? 0n]).toEqual([format, coin, expected.get(coin) ?? 0n])
      }
      // Every bill id is traceable: each is on some row, but those of internal transfers.
      const text = file.stdout
      const missing = bills.filter((bill) => !text.includes(`:${bill.billId}`))
      expect(missing.every((bill) => (bill.bizType as string).startsWith("transfer_"))).toBe(true)
    }
  }, 120_000)
})
