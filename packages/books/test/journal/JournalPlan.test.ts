/**
 * What the journal plan writes, read line by line: each kind of event's postings and the line
 * that names it, the opening balances, the order of events in one millisecond and of a transfer
 * whose legs lie apart, the balances each tool asserts and where, and what goes to suspense. The
 * journals are small and written out whole, so a change to any of these shows as a changed line;
 * the tools themselves (hledger, Ledger, bean-check) read each one too.
 */
import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { Journal, type Ledger, LedgerEvents } from "../../src/index.js"
import { checkJournal, itWith, journalFile, type Tool, tools } from "../support/journalTools.js"
import { entriesAt } from "../support/ledgerEntries.js"

const t0 = Date.UTC(2025, 7, 1, 10)
const { contract, funding, spot } = entriesAt(t0)
const at = (offset: number) => String(t0 + offset)
const rules = {
  feeRules: { funding: "delta-includes-fees", spot: "delta-includes-fees", contract: "delta-includes-fees" }
} as const

const eventsOf = (entries: ReadonlyArray<Ledger.LedgerEntry>) =>
  Effect.runSync(LedgerEvents.fromEntries(entries, rules))
const journalOf = (tool: Tool, entries: ReadonlyArray<Ledger.LedgerEntry>) =>
  Effect.runSync(Journal.write(tool, eventsOf(entries)))

/** The transactions of a journal: its text from the first dated line on. */
const body = (text: string) => text.slice(text.search(/^\d{4}-\d\d-\d\d /m))

/** Every kind of event once, on one day; funding opens at 0, spot at 500, futures at 20. */
const everyKind = () => [
  funding({
    billId: "1",
    coinName: "USDT",
    bizType: "deposit",
    deltaAmount: "100",
    fees: "1",
    afterAmount: "100",
    cTime: at(0)
  }),
  funding({
    billId: "2",
    coinName: "USDT",
    bizType: "withdraw",
    deltaAmount: "-11",
    fees: "1",
    afterAmount: "89",
    cTime: at(1)
  }),
  funding({
    billId: "3",
    coinName: "USDT",
    bizType: "transfer_out",
    deltaAmount: "-50",
    afterAmount: "39",
    cTime: at(2)
  }),
  spot({ billId: "4", coinName: "USDT", bizType: "transfer_in", deltaAmount: "50", afterAmount: "550", cTime: at(3) }),
  spot({
    billId: "5",
    coinName: "USDT",
    bizType: "trade_out",
    deltaAmount: "-100",
    afterAmount: "450",
    fillSize: "0.01",
    fillValue: "100",
    cTime: at(4)
  }),
  spot({
    billId: "6",
    coinName: "BTC",
    bizType: "trade_in",
    deltaAmount: "0.0099",
    fees: "0.0001",
    afterAmount: "0.0099",
    fillSize: "0.01",
    fillValue: "100",
    cTime: at(4)
  }),
  spot({
    billId: "7",
    coinName: "USDT",
    bizType: "order_fill_fee_income",
    deltaAmount: "-0.5",
    afterAmount: "449.5",
    cTime: at(5)
  }),
  spot({
    billId: "8",
    coinName: "USDT",
    bizType: "order_fill_fee_income",
    deltaAmount: "0",
    afterAmount: "449.5",
    cTime: at(5)
  }),
  funding({
    billId: "9",
    coinName: "WXT",
    bizType: "airdrop_reward",
    deltaAmount: "3",
    afterAmount: "3",
    cTime: at(6)
  }),
  contract({
    billId: "10",
    coinName: "USDT",
    bizType: "position_close_long",
    deltaAmount: "-2",
    afterAmount: "18",
    cTime: at(7)
  }),
  contract({
    billId: "11",
    coinName: "USDT",
    bizType: "position_funding",
    deltaAmount: "-0.25",
    afterAmount: "17.75",
    cTime: at(8)
  }),
  spot({
    billId: "12",
    coinName: "USDT",
    bizType: "strange_thing",
    deltaAmount: "1",
    afterAmount: "450.5",
    cTime: at(9)
  }),
  spot({
    billId: "13",
    coinName: "BTC",
    bizType: "trade_in",
    deltaAmount: "0.001",
    afterAmount: "0.0109",
    fillSize: "0.001",
    fillValue: "10",
    cTime: at(10)
  })
]

/**
 * Spot USDT in one millisecond, the ledger's order (by id) against the chain's: 100 -> 110
 * (deposit, id 23) -> 105 (withdrawal, 22) -> 55 (a trade's sent leg, 20; BTC received, 21);
 * in the next millisecond a cycle, 55 -> 60 (id 24) and 60 -> 55 (id 25), where only the
 * balance the chain reached tells which comes first.
 */
const oneMillisecond = () => [
  spot({
    billId: "20",
    coinName: "USDT",
    bizType: "trade_out",
    deltaAmount: "-50",
    afterAmount: "55",
    fillSize: "0.001",
    fillValue: "50",
    cTime: at(0)
  }),
  spot({
    billId: "21",
    coinName: "BTC",
    bizType: "trade_in",
    deltaAmount: "0.001",
    afterAmount: "0.001",
    fillSize: "0.001",
    fillValue: "50",
    cTime: at(0)
  }),
  spot({ billId: "22", coinName: "USDT", bizType: "withdraw", deltaAmount: "-5", afterAmount: "105", cTime: at(0) }),
  spot({ billId: "23", coinName: "USDT", bizType: "deposit", deltaAmount: "10", afterAmount: "110", cTime: at(0) }),
  spot({ billId: "24", coinName: "USDT", bizType: "withdraw", deltaAmount: "-5", afterAmount: "55", cTime: at(1) }),
  spot({ billId: "25", coinName: "USDT", bizType: "deposit", deltaAmount: "5", afterAmount: "60", cTime: at(1) })
]

/**
 * A transfer whose legs lie five seconds apart with a spot bill between them (booked when that
 * bill is), and one that cannot be placed so (a funding bill after its out leg comes before the
 * spot bill before its in leg: booked at its first leg, the assertions waiting), across a day's
 * end; an airdrop between them in time.
 */
const apart = () => {
  const late = Date.UTC(2025, 7, 1, 23, 59, 59)
  const when = (millis: number) => String(millis)
  return [
    funding({
      billId: "30",
      coinName: "USDT",
      bizType: "transfer_out",
      deltaAmount: "-20",
      afterAmount: "80",
      cTime: at(0)
    }),
    funding({
      billId: "31",
      coinName: "WXT",
      bizType: "airdrop_reward",
      deltaAmount: "1",
      afterAmount: "1",
      cTime: at(1000)
    }),
    spot({
      billId: "32",
      coinName: "USDT",
      bizType: "order_fill_fee_income",
      deltaAmount: "-1",
      afterAmount: "500",
      cTime: at(2000)
    }),
    spot({
      billId: "33",
      coinName: "USDT",
      bizType: "transfer_in",
      deltaAmount: "20",
      afterAmount: "520",
      cTime: at(5000)
    }),
    funding({
      billId: "34",
      coinName: "USDT",
      bizType: "transfer_out",
      deltaAmount: "-30",
      afterAmount: "50",
      cTime: when(late)
    }),
    funding({
      billId: "35",
      coinName: "USDT",
      bizType: "order_fill_fee_income",
      deltaAmount: "-1",
      afterAmount: "49",
      cTime: when(late + 500)
    }),
    spot({
      billId: "36",
      coinName: "USDT",
      bizType: "order_fill_fee_income",
      deltaAmount: "-2",
      afterAmount: "518",
      cTime: when(late + 1000)
    }),
    spot({
      billId: "37",
      coinName: "USDT",
      bizType: "transfer_in",
      deltaAmount: "30",
      afterAmount: "548",
      cTime: when(late + 2000)
    })
  ]
}

/** What each journal must hold, read line by line (hledger's syntax; Ledger's is the same here). */
const expected = {
  everyKind: `2025-08-01 Opening | balances before the first bill of the window
    ; time: 2025-08-01T10:00:00.000Z
    Assets:WEEX:Spot:USDT  500 USDT = 500 USDT
    Equity:WEEX:Opening  -500 USDT
    Assets:WEEX:Futures:USDT  20 USDT = 20 USDT
    Equity:WEEX:Opening  -20 USDT

2025-08-01 Deposit | funding: deposit of 101 USDT
    ; time: 2025-08-01T10:00:00.000Z
    ; bills: 1
    ; biztype: deposit
    Assets:WEEX:Funding:USDT  101 USDT
    Equity:WEEX:External  -101 USDT
    Assets:WEEX:Funding:USDT  -1 USDT = 100 USDT
    Expenses:WEEX:Fees  1 USDT

2025-08-01 Withdrawal | funding: withdrawal of 10 USDT
    ; time: 2025-08-01T10:00:00.001Z
    ; bills: 2
    ; biztype: withdraw
    Assets:WEEX:Funding:USDT  -10 USDT
    Equity:WEEX:External  10 USDT
    Assets:WEEX:Funding:USDT  -1 USDT = 89 USDT
    Expenses:WEEX:Fees  1 USDT

2025-08-01 InternalTransfer | 50 USDT from funding to spot
    ; time: 2025-08-01T10:00:00.002Z
    ; bills: 3 4
    ; biztype: transfer_out transfer_in
    Assets:WEEX:Funding:USDT  -50 USDT = 39 USDT
    Assets:WEEX:Spot:USDT  50 USDT = 550 USDT

2025-08-01 Trade | spot: bought 0.01 BTC for 100 USDT
    ; time: 2025-08-01T10:00:00.004Z
    ; bills: 5 6
    ; biztype: trade_out trade_in
    Assets:WEEX:Spot:BTC  0.01 BTC @@ 100 USDT
    Assets:WEEX:Spot:USDT  -100 USDT = 450 USDT
    Assets:WEEX:Spot:BTC  -0.0001 BTC = 0.0099 BTC
    Expenses:WEEX:Fees  0.0001 BTC

2025-08-01 Fee | spot: order_fill_fee_income 0.5 USDT
    ; time: 2025-08-01T10:00:00.005Z
    ; bills: 7
    ; biztype: order_fill_fee_income
    Assets:WEEX:Spot:USDT  -0.5 USDT = 449.5 USDT
    Expenses:WEEX:Fees  0.5 USDT

2025-08-01 Income | spot: order_fill_fee_income 0 USDT
    ; time: 2025-08-01T10:00:00.005Z
    ; bills: 8
    ; biztype: order_fill_fee_income
    Assets:WEEX:Spot:USDT  0 USDT = 449.5 USDT

2025-08-01 Income | funding: airdrop_reward 3 WXT
    ; time: 2025-08-01T10:00:00.006Z
    ; bills: 9
    ; biztype: airdrop_reward
    Assets:WEEX:Funding:WXT  3 WXT = 3 WXT
    Income:WEEX  -3 WXT

2025-08-01 Loss | contract: position_close_long 2 USDT
    ; time: 2025-08-01T10:00:00.007Z
    ; bills: 10
    ; biztype: position_close_long
    Assets:WEEX:Futures:USDT  -2 USDT = 18 USDT
    Expenses:WEEX:Losses  2 USDT

2025-08-01 Fee | contract: position_funding 0.25 USDT
    ; time: 2025-08-01T10:00:00.008Z
    ; bills: 11
    ; biztype: position_funding
    Assets:WEEX:Futures:USDT  -0.25 USDT = 17.75 USDT
    Expenses:WEEX:Fees  0.25 USDT

2025-08-01 Other | spot: business type strange_thing is not known
    ; time: 2025-08-01T10:00:00.009Z
    ; bills: 12
    ; biztype: strange_thing
    ; suspense: business type strange_thing is not known
    Assets:WEEX:Spot:USDT  1 USDT = 450.5 USDT
    Equity:WEEX:Suspense  -1 USDT

2025-08-01 Unpaired | spot: unpaired trade_in (no-counterpart)
    ; time: 2025-08-01T10:00:00.010Z
    ; bills: 13
    ; biztype: trade_in
    ; suspense: unpaired trade_in (no-counterpart)
    Assets:WEEX:Spot:BTC  0.001 BTC = 0.0109 BTC
    Equity:WEEX:Suspense  -0.001 BTC
`,
  oneMillisecond: `2025-08-01 Opening | balances before the first bill of the window
    ; time: 2025-08-01T10:00:00.000Z
    Assets:WEEX:Spot:USDT  100 USDT = 100 USDT
    Equity:WEEX:Opening  -100 USDT

2025-08-01 Deposit | spot: deposit of 10 USDT
    ; time: 2025-08-01T10:00:00.000Z
    ; bills: 23
    ; biztype: deposit
    Assets:WEEX:Spot:USDT  10 USDT = 110 USDT
    Equity:WEEX:External  -10 USDT

2025-08-01 Withdrawal | spot: withdrawal of 5 USDT
    ; time: 2025-08-01T10:00:00.000Z
    ; bills: 22
    ; biztype: withdraw
    Assets:WEEX:Spot:USDT  -5 USDT = 105 USDT
    Equity:WEEX:External  5 USDT

2025-08-01 Trade | spot: bought 0.001 BTC for 50 USDT
    ; time: 2025-08-01T10:00:00.000Z
    ; bills: 20 21
    ; biztype: trade_out trade_in
    Assets:WEEX:Spot:BTC  0.001 BTC @@ 50 USDT = 0.001 BTC
    Assets:WEEX:Spot:USDT  -50 USDT = 55 USDT

2025-08-01 Deposit | spot: deposit of 5 USDT
    ; time: 2025-08-01T10:00:00.001Z
    ; bills: 25
    ; biztype: deposit
    Assets:WEEX:Spot:USDT  5 USDT = 60 USDT
    Equity:WEEX:External  -5 USDT

2025-08-01 Withdrawal | spot: withdrawal of 5 USDT
    ; time: 2025-08-01T10:00:00.001Z
    ; bills: 24
    ; biztype: withdraw
    Assets:WEEX:Spot:USDT  -5 USDT = 55 USDT
    Equity:WEEX:External  5 USDT
`,
  apart: `2025-08-01 Opening | balances before the first bill of the window
    ; time: 2025-08-01T10:00:00.000Z
    Assets:WEEX:Funding:USDT  100 USDT = 100 USDT
    Equity:WEEX:Opening  -100 USDT
    Assets:WEEX:Spot:USDT  501 USDT = 501 USDT
    Equity:WEEX:Opening  -501 USDT

2025-08-01 Income | funding: airdrop_reward 1 WXT
    ; time: 2025-08-01T10:00:01.000Z
    ; bills: 31
    ; biztype: airdrop_reward
    Assets:WEEX:Funding:WXT  1 WXT = 1 WXT
    Income:WEEX  -1 WXT

2025-08-01 Fee | spot: order_fill_fee_income 1 USDT
    ; time: 2025-08-01T10:00:02.000Z
    ; bills: 32
    ; biztype: order_fill_fee_income
    Assets:WEEX:Spot:USDT  -1 USDT = 500 USDT
    Expenses:WEEX:Fees  1 USDT

2025-08-01 InternalTransfer | 20 USDT from funding to spot
    ; time: 2025-08-01T10:00:02.000Z
    ; bills: 30 33
    ; biztype: transfer_out transfer_in
    Assets:WEEX:Funding:USDT  -20 USDT = 80 USDT
    Assets:WEEX:Spot:USDT  20 USDT = 520 USDT

2025-08-01 InternalTransfer | 30 USDT from funding to spot
    ; time: 2025-08-01T23:59:59.000Z
    ; bills: 34 37
    ; biztype: transfer_out transfer_in
    Assets:WEEX:Funding:USDT  -30 USDT = 50 USDT
    Assets:WEEX:Spot:USDT  30 USDT

2025-08-01 Fee | funding: order_fill_fee_income 1 USDT
    ; time: 2025-08-01T23:59:59.500Z
    ; bills: 35
    ; biztype: order_fill_fee_income
    Assets:WEEX:Funding:USDT  -1 USDT = 49 USDT
    Expenses:WEEX:Fees  1 USDT

2025-08-02 Fee | spot: order_fill_fee_income 2 USDT
    ; time: 2025-08-02T00:00:00.000Z
    ; bills: 36
    ; biztype: order_fill_fee_income
    Assets:WEEX:Spot:USDT  -2 USDT = 548 USDT
    Expenses:WEEX:Fees  2 USDT
`
}

/** Beancount's end-of-day balances of each: the last bill of each account and coin that day. */
const balances = {
  everyKind: `2025-08-02 balance Assets:WEEX:Funding:USDT  39.00 ~ 0 USDT
2025-08-02 balance Assets:WEEX:Spot:USDT  450.50 ~ 0 USDT
2025-08-02 balance Assets:WEEX:Spot:BTC  0.0109 ~ 0 BTC
2025-08-02 balance Assets:WEEX:Funding:WXT  3 ~ 0 WXT
2025-08-02 balance Assets:WEEX:Futures:USDT  17.75 ~ 0 USDT`,
  oneMillisecond: `2025-08-02 balance Assets:WEEX:Spot:USDT  55 ~ 0 USDT
2025-08-02 balance Assets:WEEX:Spot:BTC  0.001 ~ 0 BTC`,
  apart: `2025-08-02 balance Assets:WEEX:Funding:WXT  1 ~ 0 WXT
2025-08-02 balance Assets:WEEX:Funding:USDT  49 ~ 0 USDT
2025-08-03 balance Assets:WEEX:Spot:USDT  548 ~ 0 USDT`
}

const scenarios = { everyKind, oneMillisecond, apart } as const

describe("the journal's transactions, line by line", () => {
  for (const [name, make] of Object.entries(scenarios) as Array<[keyof typeof scenarios, typeof everyKind]>) {
    it(`${name}: hledger's and Ledger's transactions`, () => {
      expect(body(journalOf("hledger", make()).text)).toBe(expected[name])
      // Ledger's transactions are hledger's; its header declares the tags besides.
      expect(body(journalOf("ledger", make()).text)).toBe(expected[name])
    })

    it(`${name}: every reported balance asserted once, and counted`, () => {
      const hledger = journalOf("hledger", make())
      expect(hledger.assertions).toBe([...hledger.text.matchAll(/ = /g)].length)
      const beancount = journalOf("beancount", make())
      const written = beancount.text.split("\n").filter((line) => line.includes(" balance "))
      expect(written.join("\n")).toBe(balances[name])
      expect(beancount.assertions).toBe(written.length)
    })

    for (const tool of tools) {
      itWith(tool)(`${name}: ${tool} reads it, every balance holding`, () => {
        const journal = journalOf(tool, make())
        const result = checkJournal(tool, journalFile(journal.text, `${name}.${tool}`))
        expect(result.ok, `${result.output}\n${journal.text}`).toBe(true)
      })
    }
  }
})

describe("events as a caller may hand them", () => {
  // Mutations of `plan`'s sort by time (dropped, or its order turned): fromEntries sorts, but
  // `Journal.write` takes any `LedgerEvents`.
  it("writes the same journal from the events in any order", () => {
    const events = eventsOf(apart())
    const reversed = { ...events, events: [...events.events].reverse() }
    expect(Effect.runSync(Journal.write("hledger", reversed)).text).toBe(journalOf("hledger", apart()).text)
  })

  // Mutation: the opening transaction written when no chain opens above zero.
  it("writes no opening transaction when every account and coin starts at zero", () => {
    const text = journalOf("hledger", [
      funding({ coinName: "USDT", bizType: "deposit", deltaAmount: "5", afterAmount: "5", cTime: at(0) })
    ]).text
    expect(text).not.toContain("Opening")
    expect(text).not.toContain("Equity:WEEX:Opening")
  })

  // Mutation: `rules[account] ?? "delta-includes-fees"` made `&&` (the account's own rule ignored).
  it("opens each chain by its account's fee rule, the default where the events name none", () => {
    const entries = [
      spot({ coinName: "BTC", bizType: "withdraw", deltaAmount: "-5", fees: "0.1", afterAmount: "4.9", cTime: at(0) })
    ]
    const events = eventsOf(entries)
    const openingOf = (feeRules: LedgerEvents.LedgerEvents["feeRules"]) =>
      /Assets:WEEX:Spot:BTC {2}(\S+) BTC = /.exec(
        Effect.runSync(Journal.write("hledger", { ...events, feeRules })).text
      )?.[1]
    // 4.9 after a change of -5 with its 0.1 fee taken besides: 10 before; with the fee inside: 9.9.
    expect(openingOf({ spot: "fees-subtracted" })).toBe("10")
    expect(openingOf({ spot: "delta-includes-fees" })).toBe("9.9")
    expect(openingOf({})).toBe("9.9")
  })
})

describe("an event whose parts do not add up to its balance change", () => {
  // The journal books the difference against suspense rather than break an assertion (never
  // expected from fromEntries: these events are changed by hand, as a caller's could be).
  const deposit = () =>
    eventsOf([
      funding({ billId: "40", coinName: "USDT", bizType: "deposit", deltaAmount: "5", afterAmount: "5", cTime: at(0) })
    ])
  const changed = (change: (event: LedgerEvents.Deposit) => LedgerEvents.Deposit) => {
    const events = deposit()
    return { ...events, events: events.events.map((event) => change(event as LedgerEvents.Deposit)) }
  }

  it("books what the postings miss against suspense, and lists it", () => {
    const wrong = changed((event) => ({
      ...event,
      amount: { ...event.amount, amount: BigDecimal.unsafeFromString("4") }
    }))
    const journal = Effect.runSync(Journal.write("hledger", wrong))
    expect(body(journal.text)).toBe(`2025-08-01 Deposit | funding: deposit of 4 USDT
    ; time: 2025-08-01T10:00:00.000Z
    ; bills: 40
    ; biztype: deposit
    ; suspense: the event's parts do not add up to its balance change
    Assets:WEEX:Funding:USDT  4 USDT
    Equity:WEEX:External  -4 USDT
    Assets:WEEX:Funding:USDT  1 USDT = 5 USDT
    Equity:WEEX:Suspense  -1 USDT
`)
    expect(
      journal.suspense.map((item) => [
        item.billIds,
        item.account,
        item.coin,
        BigDecimal.format(item.amount),
        item.reason
      ])
    ).toEqual([[["40"], "funding", "USDT", "1", "the event's parts do not add up to its balance change"]])
  })

  it("posts a change the event's own postings leave out, at zero, so its balance is asserted", () => {
    const extra = changed((event) => ({
      ...event,
      changes: [...event.changes, { account: "spot", coin: "BTC", amount: BigDecimal.unsafeFromString("0") }]
    }))
    const journal = Effect.runSync(Journal.write("hledger", extra))
    expect(body(journal.text)).toContain("    Assets:WEEX:Spot:BTC  0 BTC\n")
    expect(journal.suspense).toEqual([])
    // Touched changes get no such posting.
    expect(
      body(
        journalOf("hledger", [
          funding({ coinName: "USDT", bizType: "deposit", deltaAmount: "5", afterAmount: "5", cTime: at(0) })
        ]).text
      )
        .split("\n")
        .filter((line) => line.startsWith("    Assets"))
    ).toEqual(["    Assets:WEEX:Funding:USDT  5 USDT = 5 USDT"])
  })
})
