/**
 * The journals checked by the tools themselves: hledger, Ledger and Beancount each accept the
 * journal of generated accounts with every balance assertion on, end at the balances the
 * exchange reported last, and fail when one amount in the journal is broken.
 */
import { describe, expect } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { Journal, Ledger, LedgerEvents } from "../../src/index.js"
import { billDays, checkJournal, itWith, journalFile, type Tool, tools } from "../support/journalTools.js"
import { generate } from "../support/keyAccounts.js"

/** The names each tool's journal must give the test coins, written out here, not computed. */
const expectedSymbol: Readonly<Record<Tool, Readonly<Record<string, string>>>> = {
  hledger: {
    USDT: "USDT",
    BTC: "BTC",
    "1INCH": "1INCH",
    "btc-perp": "btc-perp",
    AVERYLONGCOINNAMEBEYONDTWENTYFOUR: "AVERYLONGCOINNAMEBEYONDTWENTYFOUR"
  },
  ledger: {
    USDT: "USDT",
    BTC: "BTC",
    "1INCH": "1INCH",
    "btc-perp": "btc-perp",
    AVERYLONGCOINNAMEBEYONDTWENTYFOUR: "AVERYLONGCOINNAMEBEYONDTWENTYFOUR"
  },
  beancount: {
    USDT: "USDT",
    BTC: "BTC",
    "1INCH": "X1INCH",
    "btc-perp": "BTC-PERP",
    AVERYLONGCOINNAMEBEYONDTWENTYFOUR: "AVERYLONGCOINNAMEBEYONDT"
  }
}
const parent = { funding: "Assets:WEEX:Funding", spot: "Assets:WEEX:Spot" } as const
const fileName: Readonly<Record<Tool, string>> = {
  hledger: "bills.hledger",
  ledger: "bills.ledger",
  beancount: "bills.beancount"
}

const journalOf = (tool: Tool, seed: number, steps: number) =>
  Effect.runSync(
    Effect.gen(function* () {
      const accounts = generate(seed, steps)
      const events = yield* LedgerEvents.fromEntries(accounts.entries)
      const journal = yield* Journal.write(tool, events)
      return { accounts, events, journal }
    })
  )

/** Changes the last digit of the first amount after `marker` past the middle of the text. */
const breakAmount = (text: string, marker: RegExp): string => {
  const lines = text.split("\n")
  const at = lines.findIndex((line, i) => i > lines.length / 2 && marker.test(line))
  const line = lines[at] as string
  const match = marker.exec(line) as RegExpExecArray
  const end = match.index + match[0].length
  const digit = Number(line[end - 1])
  lines[at] = `${line.slice(0, end - 1)}${(digit + 1) % 10}${line.slice(end)}`
  return lines.join("\n")
}

describe("journals checked by the tools", () => {
  for (const tool of tools) {
    itWith(tool)(
      `${tool} accepts the journal with every assertion and ends at the exchange's balances`,
      { timeout: 60_000 },
      () => {
        const { accounts, journal } = journalOf(tool, 37, 600)
        const checked = checkJournal(tool, journalFile(journal.text, fileName[tool]))
        expect(checked.ok, checked.output).toBe(true)
        // Every bill's balance is asserted (hledger, Ledger), or every day's (Beancount).
        if (tool === "beancount") {
          const days = billDays(accounts.entries)
          expect(journal.assertions).toBe(days)
          expect(journal.text.match(/^\d{4}-\d\d-\d\d balance /gm)?.length).toBe(days)
        } else {
          expect(journal.assertions).toBe(accounts.entries.length)
          expect(journal.text.match(/ = -?\d/g)?.length).toBe(accounts.entries.length)
        }
        const assets = [...checked.balances].filter(([key]) => key.startsWith("Assets:"))
        const expected = [...accounts.finalBalances].map(([key, amount]) => {
          const [account, coin] = key.split("\u0000") as [keyof typeof parent, string]
          const symbol = expectedSymbol[tool][coin] as string
          const component = tool === "beancount" ? symbol : symbol
          return [`${parent[account]}:${component}\u0000${symbol}`, BigDecimal.normalize(amount)] as const
        })
        const nonZero = expected.filter(([, amount]) => !BigDecimal.isZero(amount))
        expect(new Map(assets.map(([key, amount]) => [key, BigDecimal.format(amount)]))).toEqual(
          new Map(nonZero.map(([key, amount]) => [key, BigDecimal.format(amount)]))
        )
      }
    )

    itWith(tool)(`${tool} fails a journal with one amount broken`, { timeout: 60_000 }, () => {
      const { journal } = journalOf(tool, 38, 300)
      const broken =
        tool === "beancount"
          ? breakAmount(journal.text, /^\d{4}-\d\d-\d\d balance \S+\s+-?[\d.]+/)
          : breakAmount(journal.text, / = -?[\d.]+/)
      expect(broken).not.toBe(journal.text)
      const checked = checkJournal(tool, journalFile(broken, fileName[tool]))
      expect(checked.ok).toBe(false)
      expect(checked.output).toMatch(/assertion|Balance failed/i)
    })
  }
})

/** One USDT bill of `account`, decoded as the exchange would send it. */
const usdt =
  (account: "funding" | "spot") =>
  (billId: string, bizType: string, delta: string, after: string, cTime: number): Ledger.LedgerEntry => {
    const raw = {
      billId,
      coinId: 1,
      coinName: "USDT",
      bizType,
      deltaAmount: delta,
      afterAmount: after,
      fees: "0",
      cTime: String(cTime)
    }
    return account === "funding"
      ? Ledger.fundingEntry(Schema.decodeUnknownSync(FundingBillFromWire)(raw))
      : Ledger.spotEntry(Schema.decodeUnknownSync(SpotBillFromWire)({ ...raw, fillSize: null, fillValue: null }))
  }
const funding = usdt("funding")
const spot = usdt("spot")

describe("journals of windows and transfers the tools must still prove", () => {
  const t = Date.UTC(2025, 4, 31, 23, 59, 59, 500)
  // The window starts with balances already there (10 in spot, 5 in funding); the transfer's
  // second leg comes a second after the first, a deposit to the same account falls between, and
  // a withdrawal from the first leg's account follows.
  const entries = [
    spot("101", "transfer_out", "-4", "6", t),
    funding("102", "deposit", "1.5", "6.5", t + 400),
    funding("103", "transfer_in", "4", "10.5", t + 1000),
    spot("104", "withdraw", "-1", "5", t + 1200)
  ]
  for (const tool of tools) {
    itWith(tool)(`${tool}: opening balances, and a transfer with a bill between its legs`, { timeout: 30_000 }, () => {
      const journal = Effect.runSync(
        Effect.flatMap(LedgerEvents.fromEntries(entries), (events) => Journal.write(tool, events))
      )
      const checked = checkJournal(tool, journalFile(journal.text, fileName[tool]))
      expect(checked.ok, `${checked.output}\n${journal.text}`).toBe(true)
      const balance = (account: string) => {
        const amount = checked.balances.get(`${account}\u0000USDT`)
        return amount === undefined ? undefined : BigDecimal.format(amount)
      }
      expect(balance("Assets:WEEX:Spot:USDT")).toBe("5")
      expect(balance("Assets:WEEX:Funding:USDT")).toBe("10.5")
      expect(balance("Equity:WEEX:Opening")).toBe("-15")
      if (tool !== "beancount") {
        // Two openings and every bill: the transfer is booked after the deposit between its legs
        // (and before the withdrawal after them), where both chains agree.
        expect(journal.text.match(/ = -?\d/g)?.length).toBe(2 + entries.length)
        expect(journal.text).toMatch(/Assets:WEEX:Funding:USDT {2}1\.5 USDT = 6\.5 USDT/)
        expect(journal.text).toMatch(/Assets:WEEX:Funding:USDT {2}4 USDT = 10\.5 USDT/)
      } else {
        // The transfer is booked on the first day, after the deposit, so that day's end holds its
        // funding leg too (the balance the exchange reported after bill 103); amounts are written
        // with every decimal the coin has in the file.
        expect(journal.text).toMatch(/\n2025-06-01 balance Assets:WEEX:Spot:USDT {2}6\.0 ~ 0 USDT\n/)
        expect(journal.text).toMatch(/\n2025-06-01 balance Assets:WEEX:Funding:USDT {2}10\.5 ~ 0 USDT\n/)
        expect(journal.text).toMatch(/\n2025-06-02 balance Assets:WEEX:Spot:USDT {2}5\.0 ~ 0 USDT\n/)
        expect(journal.text.match(/ balance /g)?.length).toBe(3)
      }
    })
  }

  // Bills of both accounts fall between the legs, the first leg's account's before the second's:
  // no one place for the transfer has both chains in order. It is booked at its first leg, and
  // the deposit's own balance (6.5) is the one the journal never stands at; nothing is asserted
  // in its place but the balance after the transfer's funding leg.
  const crossed = [
    spot("201", "transfer_out", "-4", "6", t),
    spot("202", "withdraw", "-1", "5", t + 300),
    funding("203", "deposit", "1.5", "6.5", t + 400),
    funding("204", "transfer_in", "4", "10.5", t + 1000)
  ]
  for (const tool of tools) {
    itWith(tool)(`${tool}: a transfer no one place can book in both chains' order`, { timeout: 30_000 }, () => {
      const journal = Effect.runSync(
        Effect.flatMap(LedgerEvents.fromEntries(crossed), (events) => Journal.write(tool, events))
      )
      const checked = checkJournal(tool, journalFile(journal.text, fileName[tool]))
      expect(checked.ok, `${checked.output}\n${journal.text}`).toBe(true)
      expect(
        BigDecimal.format(checked.balances.get("Assets:WEEX:Funding:USDT\u0000USDT") as BigDecimal.BigDecimal)
      ).toBe("10.5")
      if (tool !== "beancount") {
        expect(journal.text.match(/ = -?\d/g)?.length).toBe(2 + crossed.length - 1)
        expect(journal.text).toMatch(/Assets:WEEX:Funding:USDT {2}1\.5 USDT = 10\.5 USDT/)
        expect(journal.text).not.toMatch(/= 6\.5 USDT/)
      }
    })
  }
})
