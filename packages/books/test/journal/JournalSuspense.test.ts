/**
 * What the suspense account may hold: the bills of unpaired legs and of unknown business types,
 * each with its own signed change, and nothing else. The journal books any difference between an
 * event's postings and its balance change against suspense rather than break an assertion, so a
 * wrong sign on a fee still passes every tool; this test is the one that sees it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { Journal, type Ledger, LedgerEvents } from "../../src/index.js"
import { generate } from "../support/keyAccounts.js"
import { entriesAt } from "../support/ledgerEntries.js"

const formats = ["hledger", "ledger", "beancount"] as const

const t0 = Date.UTC(2025, 6, 1, 9)
const { funding, spot } = entriesAt(t0)

/**
 * Events that carry a fee in every place one can be (both trade legs, a withdrawal, a deposit, a
 * fee bill of its own), a fee income, and two that belong on suspense: an unknown type and a lone leg.
 */
const feeCases = (): ReadonlyArray<Ledger.LedgerEntry> => [
  spot({
    coinName: "BTC",
    bizType: "trade_out",
    deltaAmount: "-1.01",
    fees: "0.01",
    fillSize: "1",
    fillValue: "100"
  }),
  spot({ coinName: "USDT", bizType: "trade_in", deltaAmount: "99.9", fees: "0.1", fillSize: "1", fillValue: "100" }),
  spot({
    coinName: "ETH",
    bizType: "trade_out",
    deltaAmount: "-2.02",
    fees: "0.02",
    fillSize: "2",
    fillValue: "5",
    cTime: String(t0 + 1)
  }),
  spot({
    coinName: "USDT",
    bizType: "trade_in",
    deltaAmount: "5",
    fillSize: "2",
    fillValue: "5",
    cTime: String(t0 + 1)
  }),
  funding({ coinName: "BTC", bizType: "withdraw", deltaAmount: "-0.5", fees: "0.001", cTime: String(t0 + 2) }),
  funding({ coinName: "BTC", bizType: "deposit", deltaAmount: "0.999", fees: "0.001", cTime: String(t0 + 3) }),
  spot({ coinName: "USDT", bizType: "order_fill_fee_income", deltaAmount: "-0.3", cTime: String(t0 + 4) }),
  spot({ coinName: "USDT", bizType: "order_fill_fee_income", deltaAmount: "0.2", cTime: String(t0 + 4) }),
  funding({ coinName: "WXT", bizType: "mystery_thing", deltaAmount: "-2", cTime: String(t0 + 4) }),
  spot({
    coinName: "USDT",
    bizType: "trade_in",
    deltaAmount: "3",
    fillSize: "9",
    fillValue: "3",
    cTime: String(t0 + 5)
  })
]

/** The bill ids of every transaction in `text` that posts to the suspense account. */
const suspendedInText = (text: string, account: string): Array<ReadonlyArray<string>> =>
  text
    .split("\n\n")
    .filter((block) => new RegExp(`^ +${account}\\s`, "m").test(block))
    .map((block) => {
      const bills = /bills: "?([\d ]+)"?/.exec(block)
      expect(bills, `a transaction on suspense without its bill ids:\n${block}`).not.toBeNull()
      return (bills?.[1] ?? "").trim().split(" ")
    })

/** Holds one journal to the rule; returns how many bills it saw on suspense. */
const holdToRule = (events: LedgerEvents.LedgerEvents, format: (typeof formats)[number]): number => {
  const journal = Effect.runSync(Journal.write(format, events))
  const allowed = new Map<string, LedgerEvents.LedgerEvent>()
  for (const event of events.events) {
    if (event._tag === "Unpaired" || event._tag === "Other") {
      for (const entry of event.entries) allowed.set(entry.bill.billId, event)
    }
  }
  // The list the journal returns: only allowed bills, each with the event's own change.
  for (const entry of journal.suspense) {
    expect(entry.billIds).toHaveLength(1)
    const event = allowed.get(entry.billIds[0] as string)
    expect(event, `bills ${entry.billIds.join(" ")} on suspense: ${entry.reason}`).toBeDefined()
    if (event?._tag === "Unpaired" || event?._tag === "Other") {
      expect([entry.account, entry.coin, BigDecimal.format(entry.amount)]).toEqual([
        event.change.account,
        event.change.coin,
        BigDecimal.format(event.change.amount)
      ])
    }
  }
  // Every allowed bill is listed, once.
  expect(journal.suspense.map((entry) => entry.billIds[0]).sort()).toEqual([...allowed.keys()].sort())
  // The text: every transaction that touches suspense is one of those bills.
  const inText = suspendedInText(journal.text, Journal.defaultAccountNames.suspense)
  for (const ids of inText)
    for (const id of ids) expect(allowed.has(id), `bill ${id} on suspense in ${format}`).toBe(true)
  return inText.length
}

describe("the suspense account holds only unpaired legs and unknown types", () => {
  // Mutation: a fee posting's sign turned (journalPlan's `fee`: the asset posting `amount`
  // for `negate(amount)`, the fees posting `negate(amount)`): every tool still balances, and
  // the difference lands here.
  it("in every journal of hand-made fees on both trade legs, a withdrawal and a deposit", () => {
    const events = Effect.runSync(
      LedgerEvents.fromEntries(feeCases(), {
        feeRules: { spot: "delta-includes-fees", funding: "delta-includes-fees" }
      })
    )
    expect(events.events.filter((event) => event._tag === "Trade")).toHaveLength(2)
    for (const format of formats) expect(holdToRule(events, format)).toBe(2)
  })

  it("in every journal of generated accounts", () => {
    for (const seed of [5, 7, 11]) {
      const events = Effect.runSync(LedgerEvents.fromEntries(generate(seed, 300).entries))
      expect(events.events.some((event) => event._tag === "Trade" && event.fees.length > 0)).toBe(true)
      for (const format of formats) expect(holdToRule(events, format)).toBeGreaterThan(0)
    }
  })
})
