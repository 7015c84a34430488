/**
 * `bills export --db … --account all` writes the same lines in the same order on every run: the
 * accounts in turn (funding, spot, contract), each in the documented order. Live, the walks run
 * side by side and their pages interleave as they arrive; a store answers at once, so a script
 * that compares two exports of it must see the same bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { exchangeEnv, runCli } from "./support/runCli.js"
import { fileExchange } from "./support/fileExchange.js"

const server = fileExchange({
  rateLimit: false,
  generate: { seed: 3_505, funding: 450, spot: 700, contract: 350, sameMillisecondGroup: { every: 30, size: 4 } }
})

const lines = (text: string) => (text === "" ? [] : text.trimEnd().split("\n"))

/** No exchange listens there: the export reads the store only. */
const offline = { WEEX_BASE_URL: "http://127.0.0.1:9", WEEX_CONTRACT_BASE_URL: "http://127.0.0.1:9" }

describe("export --account all from a store", () => {
  it("writes the accounts in turn, funding, spot, contract, each in the store's order, the same bytes every run", async () => {
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-store-order-")), "bills.sqlite")
    const sync = await runCli(["sync", "--db", db, "--max-rps", "50"], exchangeEnv(server.url))
    expect(sync.code).toBe(0)

    const runs = []
    for (const format of ["ndjson", "ndjson", "csv", "csv"]) {
      const run = await runCli(
        ["export", "--account", "all", "--db", db, "--format", format],
        exchangeEnv(server.url, offline)
      )
      expect(run.code).toBe(0)
      runs.push(run.stdout)
    }
    expect(runs[1]).toBe(runs[0])
    expect(runs[3]).toBe(runs[2])

    // One block per account, in the documented order of `all`.
    const accounts = lines(runs[0] ?? "").map((line) => (JSON.parse(line) as { account: string }).account)
    // The fake books a contract leg for transfers too: its count is the exchange's own.
    const contract = (await Effect.runPromise(server.exchange.contractBills)).length
    expect(accounts).toHaveLength(450 + 700 + contract)
    const blocks = accounts.filter((account, i) => account !== accounts[i - 1])
    expect(blocks).toEqual(["funding", "spot", "contract"])
    // Within an account, the lines are those of that account exported alone, in its order.
    for (const account of ["funding", "spot", "contract"]) {
      const alone = await runCli(["export", "--account", account, "--db", db], exchangeEnv(server.url, offline))
      expect(alone.code).toBe(0)
      expect(
        lines(runs[0] ?? "")
          .filter((line) => line.startsWith(`{"account":"${account}",`))
          .map((line) => `{${line.slice(`{"account":"${account}",`.length)}`)
      ).toEqual(lines(alone.stdout))
    }
  }, 300_000)
})
