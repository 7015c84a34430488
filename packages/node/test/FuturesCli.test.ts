/**
 * The futures account through `bills` as a process, against the local exchange over real HTTP:
 * `--account contract` and `--account all` export, sync and read back from the store; a key the
 * futures interface refuses (the exchange told to answer the contract operation with a permission
 * refusal) is one line and exit 0 under `all`, a typed failure saying what to do under `contract`.
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
const offline = { WEEX_BASE_URL: "http://127.0.0.1:9", WEEX_CONTRACT_BASE_URL: "http://127.0.0.1:9" }
const tempStore = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-futures-cli-")), "bills.sqlite")
const lines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")

/** The exchange refuses the futures interface to this key until `allow`. */
const refuseFutures = () =>
  Effect.runPromise(
    server.exchange.failNext(FakeFault.Code({ status: 403, code: "40014", msg: "Incorrect permissions" }), {
      operation: "contractBills",
      count: 1_000_000
    })
  )
const allow = () => Effect.runPromise(server.exchange.reset)

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({
      rateLimit: false,
      generate: { seed: 33, funding: 300, spot: 500, contract: 400, sameMillisecondGroup: { every: 30, size: 4 } }
    }).pipe(Scope.extend(scope))
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("the futures account through bills", () => {
  it('export --account contract, and all: each contract line its record with "account":"contract"; sync and read back offline', async () => {
    const held = (await Effect.runPromise(server.exchange.contractBills)).map((bill) => bill.billId).sort()
    const contract = await runCli(["export", "--account", "contract", "--max-rps", "50"], env())
    expect(contract.code).toBe(0)
    const records = lines(contract.stdout).map((line): Record<string, unknown> => JSON.parse(line))
    expect(records.map((record) => String(record.billId)).sort()).toEqual(held)
    expect(records.every((record) => record.account === undefined)).toBe(true)

    const all = await runCli(["export", "--account", "all", "--max-rps", "50"], env())
    expect(all.code).toBe(0)
    const tagged = lines(all.stdout).filter((line) => line.startsWith('{"account":"contract",'))
    // The contract line is the record exactly as exported alone, with the account in front.
    expect(tagged.sort()).toEqual(
      lines(contract.stdout)
        .map((line) => `{"account":"contract",${line.slice(1)}`)
        .sort()
    )
    expect(lines(all.stdout)).toHaveLength(300 + 500 + tagged.length)

    const csv = await runCli(["export", "--account", "contract", "--format", "csv", "--max-rps", "50"], env())
    expect(lines(csv.stdout)[0]).toBe(
      "time,billId,coinName,symbol,bizType,deltaAmount,afterAmount,fees,transferReason,cTime"
    )
    expect(lines(csv.stdout)).toHaveLength(held.length + 1)

    const db = tempStore()
    const sync = await runCli(["sync", "--db", db, "--max-rps", "50"], env())
    expect(sync.code).toBe(0)
    expect(sync.stderr).toContain(`contract: ${held.length} new bills`)
    const stored = await runCli(["export", "--account", "contract", "--db", db], env(offline))
    expect(stored.code).toBe(0)
    expect(lines(stored.stdout).sort()).toEqual(lines(contract.stdout).sort())
    const audit = await runCli(["audit", "--account", "contract", "--db", db], env(offline))
    expect(audit.stdout).toContain("contract ")
    const again = await runCli(["sync", "--db", db, "--account", "contract", "--max-rps", "50"], env())
    expect(again.stderr).toContain("contract: 0 new bills in 1 request;")
  }, 180_000)

  it("a key the futures interface refuses: all goes on with one line, exit 0; contract alone fails saying what to do", async () => {
    await refuseFutures()
    try {
      const all = await runCli(["export", "--account", "all", "--max-rps", "50"], env())
      expect(all.code).toBe(0)
      expect(lines(all.stdout)).toHaveLength(800)
      const skipped = lines(all.stderr).filter((line) => line.startsWith("contract:"))
      expect(skipped).toEqual([
        "contract: skipped, the exchange refuses this API key on the futures interface (Permission, code 40014, HTTP 403: Incorrect permissions); funding and spot are read on"
      ])

      const alone = await runCli(["export", "--account", "contract", "--max-rps", "50"], env())
      expect(alone.code).toBe(1)
      expect(alone.stdout).toBe("")
      expect(lines(alone.stderr)).toEqual([
        "bills: contract: the exchange refuses this API key on the futures interface (Permission, code 40014, HTTP 403: Incorrect permissions): the key has no futures (contract) read permission, or the account has no futures account; give the key futures read permission on the exchange (or use a key that has it), or read the other accounts with --account funding or --account spot"
      ])

      const db = tempStore()
      const sync = await runCli(["sync", "--db", db, "--max-rps", "50"], env())
      expect(sync.code).toBe(0)
      expect(sync.stderr).toContain("funding: 300 new bills")
      expect(sync.stderr).toContain("spot: 500 new bills")
      expect(sync.stderr).toContain("contract: skipped, the exchange refuses this API key on the futures interface")
      const syncAlone = await runCli(["sync", "--db", db, "--account", "contract", "--max-rps", "50"], env())
      expect(syncAlone.code).toBe(1)
      expect(syncAlone.stderr).toMatch(/^bills: contract: the exchange refuses this API key on the futures interface/)
      // The store synced without the futures account reads the other two under all.
      const stored = await runCli(["export", "--account", "all", "--db", db], env(offline))
      expect(stored.code, stored.stderr).toBe(0)
      expect(lines(stored.stdout)).toHaveLength(800)

      const audit = await runCli(["audit", "--account", "all"], env())
      expect(audit.stderr).toContain("contract: skipped, the exchange refuses this API key on the futures interface")
      expect(audit.code).toBe(0)
    } finally {
      await allow()
    }
  }, 180_000)
})
