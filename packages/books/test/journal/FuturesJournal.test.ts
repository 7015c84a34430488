/**
 * The books of a key whose history holds the futures account: realized profits and losses,
 * funding fees paid and received, opening fees, an incomeType the docs do not list, and transfers
 * between futures and spot or funding, read through the real client from the fake exchange.
 * hledger, Ledger and Beancount each accept the journal with every balance the exchange reported
 * asserted, and end at the last balance of every account and coin, the futures account's too;
 * the moves to and from futures are booked as the key's own transfers, and the unknown type is
 * kept (suspense, listed by bill id).
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import { Journal, type Ledger, LedgerEvents } from "../../src/index.js"
import { type FuturesAccounts, futuresAccounts } from "../support/futuresAccounts.js"
import { billDays, checkJournal, itWith, journalFile, type Tool, tools } from "../support/journalTools.js"

const parents = { funding: "Assets:WEEX:Funding", spot: "Assets:WEEX:Spot", contract: "Assets:WEEX:Futures" } as const
/** The names each tool gives the test coins, written out here, not computed. */
const symbols: Readonly<Record<Tool, Readonly<Record<string, string>>>> = {
  hledger: { USDT: "USDT", BTC: "BTC", "1INCH": "1INCH" },
  ledger: { USDT: "USDT", BTC: "BTC", "1INCH": "1INCH" },
  beancount: { USDT: "USDT", BTC: "BTC", "1INCH": "X1INCH" }
}

let accounts: FuturesAccounts
beforeAll(async () => {
  accounts = await futuresAccounts(34, 500, 400)
}, 60_000)

/**
 * Pairs of transfers of one coin between the same two accounts in opposite directions whose legs
 * interleave in time: each one's first leg must come before the other's second in one account,
 * so no order of the two transactions follows both chains, and one balance goes unasserted
 * (never a wrong one). Counted from the events' bills, by time.
 */
const crossedTransfers = (accounts: FuturesAccounts): number => {
  const events = Effect.runSync(LedgerEvents.fromEntries(accounts.entries))
  const transfers = events.events.flatMap((event) => {
    if (event._tag !== "InternalTransfer") return []
    const times = event.entries.map((entry) => entry.bill.cTime.epochMillis)
    return [{ ...event, start: Math.min(...times), end: Math.max(...times) }]
  })
  let crossed = 0
  for (const x of transfers) {
    for (const y of transfers) {
      if (x.from === y.to && x.to === y.from && x.from < x.to && x.amount.coin === y.amount.coin) {
        if (x.start <= y.end && y.start <= x.end) crossed++
      }
    }
  }
  return crossed
}

const decimal = (text: string) => BigDecimal.normalize(BigDecimal.unsafeFromString(text))

describe("the books of a key with a futures account", () => {
  it("holds every kind of futures bill the books must take", () => {
    const types = new Set(accounts.contract.map((bill) => bill.bizType))
    for (const type of [
      "position_open_long",
      "position_close_long",
      "position_close_short",
      "position_funding",
      "insurance_rebate",
      "transfer_in",
      "transfer_out"
    ]) {
      expect(types, type).toContain(type)
    }
    const signs = (type: string) =>
      new Set(accounts.contract.filter((bill) => bill.bizType === type).map((bill) => bill.deltaAmount.startsWith("-")))
    // Profits and losses, funding received and paid.
    expect(signs("position_close_long")).toEqual(new Set([true, false]))
    expect(signs("position_funding")).toEqual(new Set([true, false]))
    expect(accounts.entries.length).toBe(accounts.funding.length + accounts.spot.length + accounts.contract.length)
  })

  it("books every move to and from futures as the key's own transfer, and conserves every coin", () => {
    const events = Effect.runSync(LedgerEvents.fromEntries(accounts.entries))
    expect(events.conserved).toBe(true)
    // Each futures transfer was generated for one lone funding or spot leg: all of them match one.
    const futuresTransfers = accounts.contract.filter((bill) => bill.bizType.startsWith("transfer_"))
    expect(futuresTransfers.length).toBeGreaterThan(10)
    const matched = events.events.filter(
      (event) => event._tag === "InternalTransfer" && (event.from === "contract" || event.to === "contract")
    )
    const matchedIds = new Set<string>(matched.flatMap((event) => event.entries.map((entry) => entry.bill.billId)))
    expect(futuresTransfers.filter((bill) => !matchedIds.has(bill.billId))).toEqual([])
    expect(matched.length).toBe(futuresTransfers.length)
    for (const event of matched) {
      if (event._tag !== "InternalTransfer") continue
      const [a, b] = event.entries as [Ledger.LedgerEntry, Ledger.LedgerEntry]
      expect(a.bill.coinName).toBe(b.bill.coinName)
      expect(BigDecimal.equals(BigDecimal.abs(a.bill.deltaAmount), BigDecimal.abs(b.bill.deltaAmount))).toBe(true)
    }
    // Per account and coin, summed apart from the module: the events' changes are the bills'.
    const bills = new Map<string, BigDecimal.BigDecimal>()
    for (const entry of accounts.entries) {
      const key = `${entry.account}\u0000${entry.bill.coinName}`
      bills.set(key, BigDecimal.sum(bills.get(key) ?? BigDecimal.make(0n, 0), entry.bill.deltaAmount))
    }
    const changes = new Map<string, BigDecimal.BigDecimal>()
    for (const change of events.events.flatMap((event) => event.changes)) {
      const key = `${change.account}\u0000${change.coin}`
      changes.set(key, BigDecimal.sum(changes.get(key) ?? BigDecimal.make(0n, 0), change.amount))
    }
    const text = (map: ReadonlyMap<string, BigDecimal.BigDecimal>) =>
      new Map([...map].map(([key, amount]) => [key, BigDecimal.format(BigDecimal.normalize(amount))]))
    expect(text(changes)).toEqual(text(bills))
  })

  for (const tool of tools) {
    itWith(tool)(
      `${tool} accepts the journal with every balance asserted and ends at the exchange's last balances`,
      { timeout: 60_000 },
      () => {
        const events = Effect.runSync(LedgerEvents.fromEntries(accounts.entries))
        const journal = Effect.runSync(Journal.write(tool, events))
        const checked = checkJournal(tool, journalFile(journal.text, `futures.${tool}`))
        expect(checked.ok, checked.output).toBe(true)
        if (tool === "beancount") {
          expect(journal.assertions).toBe(billDays(accounts.entries))
        } else {
          // Every bill's balance, the futures account's included, but one per transfer that no
          // one place can book with both chains in order (see crossedTransfers).
          const crossed = crossedTransfers(accounts)
          expect(crossed).toBeLessThan(4)
          expect(journal.assertions).toBe(accounts.entries.length - crossed)
          expect(journal.text.match(/ = -?\d/g)?.length).toBe(accounts.entries.length - crossed)
          expect(journal.text.match(/^ +Assets:WEEX:Futures:\S+ {2}.* = -?\d/gm)?.length).toBe(accounts.contract.length)
        }
        const assets = new Map(
          [...checked.balances]
            .filter(([key]) => key.startsWith("Assets:"))
            .map(([key, amount]) => [key, BigDecimal.format(amount)])
        )
        const expected = new Map(
          [...accounts.finalBalances]
            .map(([key, after]) => {
              const [account, coin] = key.split("\u0000") as [keyof typeof parents, string]
              const symbol = symbols[tool][coin] as string
              return [`${parents[account]}:${symbol}\u0000${symbol}`, decimal(after)] as const
            })
            .filter(([, amount]) => !BigDecimal.isZero(amount))
            .map(([key, amount]) => [key, BigDecimal.format(amount)])
        )
        expect([...expected.keys()].some((key) => key.startsWith("Assets:WEEX:Futures:"))).toBe(true)
        expect(assets).toEqual(expected)
        // The incomeType the docs do not list is kept: booked against suspense, each bill named.
        const unknown = accounts.contract.filter((bill) => bill.bizType === "insurance_rebate")
        const listed = new Set(journal.suspense.flatMap((entry) => entry.billIds))
        expect(unknown.filter((bill) => !listed.has(bill.billId))).toEqual([])
      }
    )
  }

  itWith("hledger")(
    "hledger: futures profits, losses, funding and fees land in income, losses and fees, per coin to the unit",
    { timeout: 60_000 },
    () => {
      const events = Effect.runSync(LedgerEvents.fromEntries(accounts.entries))
      const file = journalFile(Effect.runSync(Journal.write("hledger", events)).text, "futures.hledger")
      // What the bills give, by incomeType and sign, summed apart from the module; in hledger's
      // signs (income negative, expenses positive).
      const expected = new Map<string, BigDecimal.BigDecimal>()
      for (const bill of accounts.contract) {
        const delta = decimal(bill.deltaAmount)
        if (!/^(position|tracking)_/.test(bill.bizType) || BigDecimal.isZero(delta)) continue
        const account = !BigDecimal.isNegative(delta)
          ? "Income:WEEX"
          : bill.bizType.startsWith("position_close")
            ? "Expenses:WEEX:Losses"
            : "Expenses:WEEX:Fees"
        const key = `${account}\u0000${bill.coinName}`
        expected.set(key, BigDecimal.sum(expected.get(key) ?? BigDecimal.make(0n, 0), BigDecimal.negate(delta)))
      }
      expect(expected.size).toBeGreaterThan(6)
      // hledger's own report over the futures transactions (their biztype tag).
      const run = spawnSync(
        "hledger",
        ["-f", file, "balance", "--flat", "-N", "-O", "csv", "--layout=bare", "tag:biztype=^(position|tracking)_"],
        { encoding: "utf8" }
      )
      expect(run.status, run.stderr).toBe(0)
      const reported = new Map<string, string>()
      for (const line of run.stdout.trim().split("\n").slice(1)) {
        const [account, commodity, amount] = line.split(",").map((cell) => cell.replace(/^"|"$/g, ""))
        if (account?.startsWith("Assets:")) continue
        reported.set(`${account}\u0000${commodity}`, BigDecimal.format(decimal(amount as string)))
      }
      expect(reported).toEqual(
        new Map([...expected].map(([key, amount]) => [key, BigDecimal.format(BigDecimal.normalize(amount))]))
      )
    }
  )
})
