/**
 * The tax files of a key whose history holds the futures account (realized profits and losses,
 * funding fees paid and received, opening fees, an incomeType the docs do not list, transfers
 * between futures and spot or funding), exported by the `bills` program from the local exchange
 * and checked with nothing of ours: per coin, each file adds up in its tool's convention to the
 * bills' own balance changes of the three accounts; the moves to and from futures get no row (the
 * key's own transfers); every other futures bill is on a row, by the tool's name for what it is;
 * the unknown type is kept, marked and listed on stderr.
 */
import { describe, expect, it } from "@effect/vitest"
import { futuresBills } from "../../books/test/support/futuresAccounts.js"
import { exchangeEnv, runCli } from "./support/runCli.js"
import { add, conventions, records, toUnits } from "./support/taxCsv.js"
import { fileExchange } from "./support/fileExchange.js"

const bills = futuresBills(37, 400, 300)
const server = fileExchange({
  rateLimit: false,
  bills: { funding: bills.funding, spot: bills.spot, contract: bills.contract }
})

const window = ["--from", new Date(bills.from).toISOString(), "--to", new Date(bills.to).toISOString()]

/** What each tool calls a futures bill's row, by what the bill does to the balance. */
const futuresType: Readonly<Record<string, (bizType: string, negative: boolean) => string>> = {
  koinly: (bizType, negative) =>
    bizType.startsWith("position_close") ? "realized gain" : negative ? "cost" : "income",
  cointracking: (bizType, negative) =>
    bizType.startsWith("position_close")
      ? `Derivatives / Futures ${negative ? "Loss" : "Profit"}`
      : negative
        ? "Other Fee"
        : "Income",
  bittytax: (_bizType, negative) => (negative ? "Spend" : "Income")
}
const typeColumn: Readonly<Record<string, string>> = { koinly: "Label", cointracking: "Type", bittytax: "Type" }
const noteColumn: Readonly<Record<string, string>> = {
  koinly: "Description",
  cointracking: "Comment",
  bittytax: "Note"
}

describe("tax files of a key with a futures account", () => {
  for (const format of ["koinly", "cointracking", "bittytax"]) {
    it(`${format}: adds up per coin to the three accounts' bills; futures transfers no row, the rest by kind`, async () => {
      const file = await runCli(["export", "--format", format, ...window], exchangeEnv(server.url))
      expect(file.code, file.stderr).toBe(0)
      const rows = records(file.stdout)
      // The generator's balances follow after = before + delta, so a bill's change is its delta.
      const expected = new Map<string, bigint>()
      for (const bill of [...bills.funding, ...bills.spot, ...bills.contract]) {
        add(expected, bill.coinName, toUnits(bill.deltaAmount))
      }
      const sums = new Map<string, bigint>()
      for (const row of rows) conventions[format]?.(row, sums)
      expect(sums).toEqual(expected)

      const rowOf = new Map<string, Record<string, string>>()
      for (const row of rows) {
        for (const id of (row[noteColumn[format] as string] ?? "").matchAll(/contract:(\d+)/g)) {
          rowOf.set(id[1] as string, row)
        }
      }
      const transfers = bills.contract.filter((bill) => bill.bizType.startsWith("transfer_"))
      expect(transfers.length).toBeGreaterThan(10)
      expect(transfers.filter((bill) => rowOf.has(bill.billId))).toEqual([])
      for (const bill of bills.contract) {
        if (bill.bizType.startsWith("transfer_")) continue
        const row = rowOf.get(bill.billId)
        expect(row, bill.billId).toBeDefined()
        if (bill.bizType === "insurance_rebate") {
          expect(row?.[noteColumn[format] as string]).toMatch(/^WEEX UNKNOWN TYPE insurance_rebate;/)
          expect(file.stderr).toContain(bill.billId)
        } else if (!/^0(\.0*)?$/.test(bill.deltaAmount)) {
          const type = futuresType[format]?.(bill.bizType, bill.deltaAmount.startsWith("-"))
          expect([bill.bizType, row?.[typeColumn[format] as string]]).toEqual([bill.bizType, type])
        }
      }
    })
  }
})
