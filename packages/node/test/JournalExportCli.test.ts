/**
 * `bills export --format hledger|ledger|beancount` as a process against the local exchange
 * (linked bills: trades as two legs, transfers with both legs, unknown types now and then): each
 * journal accepted by its tool with every assertion on and ending at the balances the exchange
 * reported last; suspense listed on stderr by bill id; account names from a mapping file; a bad
 * mapping refused before anything is sent; the same journal from a store.
 */
import { FakeExchange } from "@account-bills/core/testing"
import { afterAll, beforeAll, describe, expect } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { checkJournal, itWith, tools } from "../../books/test/support/journalTools.js"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { exchangeEnv, runCli } from "./support/runCli.js"

let server: FakeExchangeServerService
let scope: Scope.CloseableScope
const env = () => exchangeEnv(server.url, { WEEX_API_SECRET: FakeExchange.defaultCredentials.secret })
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bills-journal-"))

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({ rateLimit: false, generate: { seed: 11, funding: 150, spot: 300, linked: true } }).pipe(
      Scope.extend(scope)
    )
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const parents = { funding: "Assets:WEEX:Funding", spot: "Assets:WEEX:Spot" } as const

describe("bills export to a journal", () => {
  for (const tool of tools) {
    itWith(tool)(`${tool}: the tool accepts the journal and ends at the exchange's last balances`, async () => {
      const out = path.join(dir, `bills.${tool}`)
      const result = await runCli(["export", "--format", tool, "--out", out], env())
      expect(result.code, result.stderr).toBe(0)
      const checked = checkJournal(tool, out)
      expect(checked.ok, checked.output).toBe(true)
      // Per account and coin the bill booked last (the generator's coins need no renaming).
      const last = new Map<string, { readonly cTime: number; readonly afterAmount: string; readonly tied: boolean }>()
      for (const account of ["funding", "spot"] as const) {
        for (const bill of await Effect.runPromise(server.exchange.bills(account))) {
          const key = `${parents[account]}:${bill.coinName}\u0000${bill.coinName}`
          const cTime = Number(bill.cTime)
          const seen = last.get(key)
          if (seen === undefined || cTime > seen.cTime)
            last.set(key, { cTime, afterAmount: bill.afterAmount, tied: false })
          else if (cTime === seen.cTime) last.set(key, { ...seen, tied: true })
        }
      }
      const compared = [...last].filter(([, bill]) => !bill.tied)
      expect(compared.length).toBeGreaterThan(4)
      for (const [key, bill] of compared) {
        const amount = checked.balances.get(key) ?? BigDecimal.make(0n, 0)
        expect(BigDecimal.format(amount), key).toBe(
          BigDecimal.format(BigDecimal.normalize(BigDecimal.unsafeFromString(bill.afterAmount)))
        )
      }
      const unknown = [
        ...(await Effect.runPromise(server.exchange.bills("funding"))),
        ...(await Effect.runPromise(server.exchange.bills("spot")))
      ].filter((bill) => bill.bizType === "system_issued")
      expect(unknown.length).toBeGreaterThan(0)
      for (const bill of unknown) {
        expect(result.stderr).toMatch(new RegExp(`SUSPENSE: .*system_issued is not known: bill ${bill.billId}`))
      }
      expect(result.stderr).toMatch(new RegExp(`^${tool}: \\d+ transactions from \\d+ bills; \\d+ balance`, "m"))
    })
  }

  itWith("beancount")("renames accounts from a mapping file, and refuses one the tool would not accept", async () => {
    const names = path.join(dir, "names.json")
    fs.writeFileSync(names, JSON.stringify({ spot: "Assets:Exchange:Spot", suspense: "Equity:Unexplained" }))
    const out = path.join(dir, "renamed.beancount")
    const result = await runCli(["export", "--format", "beancount", "--account-names", names, "--out", out], env())
    expect(result.code, result.stderr).toBe(0)
    const text = fs.readFileSync(out, "utf8")
    expect(text).toMatch(/ open Assets:Exchange:Spot:USDT USDT$/m)
    expect(text).toMatch(/ open Equity:Unexplained$/m)
    expect(checkJournal("beancount", out).ok).toBe(true)

    fs.writeFileSync(names, JSON.stringify({ spot: "assets:spot" }))
    const before = (await Effect.runPromise(server.exchange.requests)).length
    const refused = await runCli(["export", "--format", "beancount", "--account-names", names], env())
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--account-names: account name for spot \("assets:spot"\) does not suit beancount/)
    expect(refused.stdout).toBe("")
    expect((await Effect.runPromise(server.exchange.requests)).length).toBe(before)
  })

  itWith("hledger")("writes the same journal from a store synced from the exchange, offline", async () => {
    const db = path.join(dir, "bills.sqlite")
    const sync = await runCli(["sync", "--db", db, "--account", "all"], env())
    expect(sync.code, sync.stderr).toBe(0)
    const live = await runCli(["export", "--format", "hledger"], env())
    const stored = await runCli(["export", "--format", "hledger", "--db", db], env())
    expect(stored.code, stored.stderr).toBe(0)
    expect(stored.stdout).toBe(live.stdout)
  })
})
