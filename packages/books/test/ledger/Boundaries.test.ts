/**
 * Every documented bound of the pairing and matching rules (`docs/internals/events.md`), pinned
 * through the public API: the bound itself, one step inside, one step outside. Each test names
 * the one-character change in `internal/ledgerEvents.ts` or `LedgerEvents.ts` it was seen to
 * catch.
 */
import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import { type Ledger, LedgerEvents, TaxFiles } from "../../src/index.js"
import { entriesAt } from "../support/ledgerEntries.js"

const start = Date.UTC(2025, 5, 1, 12)
const { funding, spot } = entriesAt(start)
const rule = { spot: "delta-includes-fees", funding: "delta-includes-fees" } as const

const eventsOf = (entries: ReadonlyArray<Ledger.LedgerEntry>, options?: LedgerEvents.EventsOptions) =>
  Effect.runSync(LedgerEvents.fromEntries(entries, options))
const tagsOf = (entries: ReadonlyArray<Ledger.LedgerEntry>, options?: LedgerEvents.EventsOptions) =>
  eventsOf(entries, options).events.map((event) =>
    event._tag === "Unpaired" ? `Unpaired:${event.reason}` : event._tag
  )
const idsOf = (event: LedgerEvents.LedgerEvent) => event.entries.map((entry) => entry.bill.billId)

/** A transfer out of funding and its in leg in spot, `lag` ms later (negative: earlier). */
const transferPair = (lag: number, amounts: readonly [string, string] = ["-10.5", "10.5"]) => [
  funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: amounts[0] }),
  spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: amounts[1], cTime: String(start + lag) })
]

describe("the transfer window: at most windowMillis apart", () => {
  const window = LedgerEvents.defaultTransferWindowMillis

  // Mutation `distance <= windowMillis` -> `distance < windowMillis`: the bound splits.
  it("matches two legs exactly the default window apart, either way round", () => {
    expect(tagsOf(transferPair(window))).toEqual(["InternalTransfer"])
    expect(tagsOf(transferPair(-window))).toEqual(["InternalTransfer"])
  })

  it("matches two legs one millisecond inside the window", () => {
    expect(tagsOf(transferPair(window - 1))).toEqual(["InternalTransfer"])
  })

  // Mutation `<=` -> `<= windowMillis + 1` (or the constant raised): one past the bound pairs.
  it("leaves two legs one millisecond outside the window unmatched", () => {
    expect(tagsOf(transferPair(window + 1))).toEqual(["Unpaired:no-matching-transfer", "Unpaired:no-matching-transfer"])
    expect(tagsOf(transferPair(-window - 1))).toEqual([
      "Unpaired:no-matching-transfer",
      "Unpaired:no-matching-transfer"
    ])
  })

  // Mutation: `options.transferWindowMillis ?? default` -> default alone.
  it("takes a window the caller gives, with the same bound", () => {
    const options = { transferWindowMillis: 250 }
    expect(tagsOf(transferPair(250), options)).toEqual(["InternalTransfer"])
    expect(tagsOf(transferPair(251), options)).toEqual([
      "Unpaired:no-matching-transfer",
      "Unpaired:no-matching-transfer"
    ])
    // A window of zero: the same millisecond only.
    expect(tagsOf(transferPair(0), { transferWindowMillis: 0 })).toEqual(["InternalTransfer"])
    expect(tagsOf(transferPair(1), { transferWindowMillis: 0 })).toEqual([
      "Unpaired:no-matching-transfer",
      "Unpaired:no-matching-transfer"
    ])
  })

  it("the window's bound decides what every tax file holds: no flagged row at the bound", () => {
    const events = eventsOf(transferPair(window))
    for (const format of TaxFiles.taxFormats) {
      // An internal transfer writes no row: the header alone.
      expect([...TaxFiles.lines(format, events)]).toEqual([TaxFiles.header(format)])
    }
    const split = eventsOf(transferPair(window + 1))
    for (const format of TaxFiles.taxFormats) {
      const rows = [...TaxFiles.lines(format, split)].slice(1)
      expect(rows).toHaveLength(2)
      for (const row of rows) expect(row).toContain("UNPAIRED")
    }
  })

  // Mutation: `amountKey` without `normalize` ("10.50" and "10.5" keyed apart).
  it("compares amounts as exact decimals: the same amount at another scale matches, one unit off does not", () => {
    // The in leg's balance has two decimals, so its change comes out as 10.50: the same amount.
    const legs = transferPair(5, ["-10.5", "10.5"])
    const scaled = [
      legs[0] as Ledger.LedgerEntry,
      spot({
        coinName: "USDT",
        bizType: "transfer_in",
        deltaAmount: "10.5",
        afterAmount: "1000.25",
        cTime: String(start + 5)
      })
    ]
    expect(tagsOf(scaled)).toEqual(["InternalTransfer"])
    expect(tagsOf(transferPair(5, ["-10.5", "10.500"]))).toEqual(["InternalTransfer"])
    expect(tagsOf(transferPair(5, ["-10.5", "10.500000001"]))).toEqual([
      "Unpaired:no-matching-transfer",
      "Unpaired:no-matching-transfer"
    ])
  })

  // Mutation: the candidates sorted without `a.distance - b.distance`.
  it("takes the nearer of two candidates, the far one left, whichever comes first in the ledger", () => {
    const out = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-3", cTime: String(start + 5000) })
    const far = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "3", cTime: String(start) })
    const near = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "3", cTime: String(start + 9000) })
    const { events } = eventsOf([out, far, near])
    const transfer = events.find((event) => event._tag === "InternalTransfer")
    expect(transfer && idsOf(transfer)).toEqual([out.bill.billId, near.bill.billId])
    expect(events.filter((event) => event._tag === "Unpaired").flatMap(idsOf)).toEqual([far.bill.billId])
  })

  // Mutation: `into.entry.account !== out.entry.account` dropped.
  it("never matches two legs of one account, even at distance zero", () => {
    const legs = [
      spot({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-1" }),
      spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "1" })
    ]
    expect(tagsOf(legs)).toEqual(["Unpaired:no-matching-transfer", "Unpaired:no-matching-transfer"])
  })

  // Mutation: the in legs' map keeps only the last leg of a coin and amount (`list === undefined`
  // -> `true`): the nearer in leg, first in the ledger, would be forgotten for the farther one.
  it("remembers every in leg of one coin and amount: the nearer, earlier one is matched", () => {
    const near = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "4", cTime: String(start + 4000) })
    const out = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-4", cTime: String(start + 5000) })
    const far = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "4", cTime: String(start + 9000) })
    const { events } = eventsOf([near, out, far])
    const transfer = events.find((event) => event._tag === "InternalTransfer")
    expect(transfer && idsOf(transfer)).toEqual([near.bill.billId, out.bill.billId])
    expect(events.filter((event) => event._tag === "Unpaired").flatMap(idsOf)).toEqual([far.bill.billId])
  })

  // Mutations of the tie order (`a.out.index - b.out.index`, `a.into.index - b.into.index`): at
  // equal distance the leg earlier in the ledger is taken, whichever way round the legs came.
  it("at equal distance takes the in leg, and the out leg, earlier in the ledger", () => {
    const before = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "6", cTime: String(start + 1000) })
    const out = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-6", cTime: String(start + 3000) })
    const after = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "6", cTime: String(start + 5000) })
    for (const entries of [
      [before, out, after],
      [after, out, before]
    ]) {
      const { events } = eventsOf(entries)
      const transfer = events.find((event) => event._tag === "InternalTransfer")
      expect(transfer && idsOf(transfer)).toEqual([before.bill.billId, out.bill.billId])
    }
    const early = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-6", cTime: String(start + 1000) })
    const into = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "6", cTime: String(start + 3000) })
    const late = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-6", cTime: String(start + 5000) })
    for (const entries of [
      [early, into, late],
      [late, into, early]
    ]) {
      const { events } = eventsOf(entries)
      const transfer = events.find((event) => event._tag === "InternalTransfer")
      expect(transfer && idsOf(transfer)).toEqual([early.bill.billId, into.bill.billId])
      expect(events.filter((event) => event._tag === "Unpaired").flatMap(idsOf)).toEqual([late.bill.billId])
    }
  })

  // Mutation: `used` not checked for the in leg: one in leg would serve two outs.
  it("matches one to one: two outs and one in leave one out unmatched", () => {
    const legs = [
      funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-2" }),
      funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-2", cTime: String(start + 1) }),
      spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "2", cTime: String(start + 1) })
    ]
    const { events } = eventsOf(legs)
    expect(events.map((event) => event._tag).sort()).toEqual(["InternalTransfer", "Unpaired"])
    // The nearer out (the same millisecond) is the one matched.
    const transfer = events.find((event) => event._tag === "InternalTransfer")
    expect(transfer && idsOf(transfer)).toEqual([legs[1]?.bill.billId, legs[2]?.bill.billId])
  })
})

/** One trade's legs with the given fills and coins, in spot, in one millisecond unless said. */
const out = (coin: string, delta: string, fill: readonly [string, string], fields: Record<string, string> = {}) =>
  spot({ coinName: coin, bizType: "trade_out", deltaAmount: delta, fillSize: fill[0], fillValue: fill[1], ...fields })
const into = (coin: string, delta: string, fill: readonly [string, string], fields: Record<string, string> = {}) =>
  spot({ coinName: coin, bizType: "trade_in", deltaAmount: delta, fillSize: fill[0], fillValue: fill[1], ...fields })
const fill = ["1", "100"] as const

describe("trade pairing: one account, one millisecond, one fill, different coins", () => {
  it("pairs the two legs of one fill in one millisecond; one millisecond apart they stay unpaired", () => {
    expect(tagsOf([out("BTC", "-1", fill), into("USDT", "100", fill)], { feeRules: rule })).toEqual(["Trade"])
    expect(
      tagsOf([out("BTC", "-1", fill), into("USDT", "100", fill, { cTime: String(start + 1) })], { feeRules: rule })
    ).toEqual(["Unpaired:no-counterpart", "Unpaired:no-counterpart"])
  })

  // Mutation: `fillOf`'s `||` -> `&&` (a leg with only one side of the fill zero would pair).
  it("pairs nothing whose fill size or fill value is zero, even when the other half matches", () => {
    for (const zero of [
      ["0", "100"],
      ["1", "0"],
      ["0.000", "0"]
    ] as const) {
      expect(tagsOf([out("BTC", "-1", zero), into("USDT", "100", zero)], { feeRules: rule })).toEqual([
        "Unpaired:no-counterpart",
        "Unpaired:no-counterpart"
      ])
    }
  })

  // Mutation: the fill key built from `fillSize` alone.
  it("does not pair fills that agree on size and differ in value by the smallest unit", () => {
    expect(
      tagsOf([out("BTC", "-1", ["1", "100"]), into("USDT", "100", ["1", "100.00000001"])], { feeRules: rule })
    ).toEqual(["Unpaired:no-counterpart", "Unpaired:no-counterpart"])
  })

  // Mutation: `out0.coin !== in0.coin` dropped.
  it("does not pair an out and an in of the same coin", () => {
    expect(tagsOf([out("BTC", "-1", fill), into("BTC", "1", fill)], { feeRules: rule })).toEqual([
      "Unpaired:ambiguous",
      "Unpaired:ambiguous"
    ])
  })

  // Mutation: `outs.length === ins.length` dropped.
  it("leaves two outs and one in of one fill ambiguous", () => {
    expect(
      tagsOf([out("BTC", "-1", fill), out("BTC", "-1", fill), into("USDT", "100", fill)], { feeRules: rule })
    ).toEqual(["Unpaired:ambiguous", "Unpaired:ambiguous", "Unpaired:ambiguous"])
  })

  // Mutation: `sameReport` without the fee (`BigDecimal.equals(a.fee, b.fee)` -> true).
  it("leaves two outs and two ins of one fill and millisecond with different fees ambiguous", () => {
    const legs = [
      out("BTC", "-1", fill),
      out("BTC", "-1", fill),
      into("USDT", "99.9", fill, { fees: "0.1" }),
      into("USDT", "99.9", fill, { fees: "0.2" })
    ]
    expect(tagsOf(legs, { feeRules: rule })).toEqual(Array(4).fill("Unpaired:ambiguous"))
    // The same with equal fees pairs: the fee alone decided.
    const alike = [
      out("BTC", "-1", fill),
      out("BTC", "-1", fill),
      into("USDT", "99.9", fill, { fees: "0.1" }),
      into("USDT", "99.9", fill, { fees: "0.1" })
    ]
    expect(tagsOf(alike, { feeRules: rule })).toEqual(["Trade", "Trade"])
  })

  // Mutation: `sameReport` without the change (`BigDecimal.equals(a.change, b.change)` -> true).
  it("leaves two outs of one fill whose changes differ ambiguous", () => {
    const legs = [out("BTC", "-1", fill), out("BTC", "-2", fill), into("USDT", "100", fill), into("USDT", "100", fill)]
    expect(tagsOf(legs, { feeRules: rule })).toEqual(Array(4).fill("Unpaired:ambiguous"))
    const ins = [out("BTC", "-1", fill), out("BTC", "-1", fill), into("USDT", "100", fill), into("USDT", "90", fill)]
    expect(tagsOf(ins, { feeRules: rule })).toEqual(Array(4).fill("Unpaired:ambiguous"))
  })

  // Mutation: `sameReport` without the coin (`a.coin === b.coin` -> true): two outs of one fill
  // in different coins with equal changes are not interchangeable, nor two ins.
  it("leaves two outs (or two ins) of one fill in different coins ambiguous, equal amounts or not", () => {
    const outs = [out("BTC", "-1", fill), out("ETH", "-1", fill), into("USDT", "100", fill), into("USDT", "100", fill)]
    expect(tagsOf(outs, { feeRules: rule })).toEqual(Array(4).fill("Unpaired:ambiguous"))
    const ins = [out("BTC", "-1", fill), out("BTC", "-1", fill), into("USDT", "100", fill), into("USDC", "100", fill)]
    expect(tagsOf(ins, { feeRules: rule })).toEqual(Array(4).fill("Unpaired:ambiguous"))
  })

  // Mutations of which side a leg is on (`isNegative(change) || bizType === "trade_out"`, its
  // `||` made `&&`, either half made false): a trade_out is the sent leg even when its balance
  // did not fall, and any leg whose balance fell is a sent leg, whatever its type says.
  it("takes a trade_out as the sent leg at a change of zero, and a leg whose balance fell as sent", () => {
    const dust = eventsOf([out("BTC", "0", fill), into("USDT", "100", fill)], { feeRules: rule })
    expect(dust.events.map((event) => event._tag)).toEqual(["Trade"])
    const trade = dust.events[0] as LedgerEvents.Trade
    expect([trade.sent.coin, BigDecimal.format(trade.sent.amount)]).toEqual(["BTC", "0"])
    expect([trade.received.coin, BigDecimal.format(trade.received.amount)]).toEqual(["USDT", "100"])
    // A trade_in whose balance fell is a second sent leg: no leg received, nothing pairs.
    expect(tagsOf([out("BTC", "-1", fill), into("USDT", "-100", fill)], { feeRules: rule })).toEqual([
      "Unpaired:no-counterpart",
      "Unpaired:no-counterpart"
    ])
  })

  // Mutation: `compareIds` without the length (ids compared as text: "10" before "9").
  it("pairs interchangeable legs in bill id order, ids read as numbers", () => {
    const legs = [
      out("BTC", "-1", fill, { billId: "10" }),
      out("BTC", "-1", fill, { billId: "9" }),
      into("USDT", "100", fill, { billId: "11" }),
      into("USDT", "100", fill, { billId: "12" })
    ]
    const trades = eventsOf(legs, { feeRules: rule }).events.filter((event) => event._tag === "Trade")
    // As text "10" < "9" would pair 10 with 11; as numbers 9 pairs with 11, 10 with 12.
    expect(trades.map((trade) => idsOf(trade).sort((a, b) => Number(a) - Number(b)))).toEqual([
      ["9", "11"],
      ["10", "12"]
    ])
  })

  // Mutation: emitTrade's `sent` without `+ out.fee` (the fee on the sent leg counted twice).
  it("a fee on the sent leg, on the received leg and on both: sent and received gross, each fee once", () => {
    const cases = [
      { outDelta: "-1.01", outFee: "0.01", inDelta: "100", inFee: "0", fees: [["BTC", "0.01"]] },
      { outDelta: "-1", outFee: "0", inDelta: "99.9", inFee: "0.1", fees: [["USDT", "0.1"]] },
      {
        outDelta: "-1.01",
        outFee: "0.01",
        inDelta: "99.9",
        inFee: "0.1",
        fees: [
          ["BTC", "0.01"],
          ["USDT", "0.1"]
        ]
      }
    ]
    for (const c of cases) {
      const result = eventsOf(
        [out("BTC", c.outDelta, fill, { fees: c.outFee }), into("USDT", c.inDelta, fill, { fees: c.inFee })],
        { feeRules: rule }
      )
      const trade = result.events[0] as LedgerEvents.Trade
      expect(trade._tag).toBe("Trade")
      expect([trade.sent.coin, BigDecimal.format(trade.sent.amount)]).toEqual(["BTC", "1"])
      expect([trade.received.coin, BigDecimal.format(trade.received.amount)]).toEqual(["USDT", "100"])
      expect(trade.fees.map((fee) => [fee.coin, BigDecimal.format(fee.amount)])).toEqual(c.fees)
      expect(result.conserved).toBe(true)
    }
  })
})

describe("income, fee and loss: the sign of the change decides", () => {
  // Mutation: `!BigDecimal.isNegative(leg.change)` -> `BigDecimal.isPositive(leg.change)`.
  it("a fee-kind bill of change zero is Income; a change one unit below zero is a Fee", () => {
    const result = eventsOf(
      [
        spot({ coinName: "USDT", bizType: "order_fill_fee_income", deltaAmount: "0" }),
        spot({ coinName: "USDT", bizType: "order_fill_fee_income", deltaAmount: "-0.00000001" }),
        funding({ coinName: "WXT", bizType: "airdrop_reward", deltaAmount: "0.00000001" })
      ],
      { feeRules: rule }
    )
    // In one millisecond funding comes first, then spot by bill id.
    expect(result.events.map((event) => event._tag)).toEqual(["Income", "Income", "Fee"])
  })
})

describe("feeRules given for some accounts only", () => {
  // spot's chain 0 -> 10 -> 4.9 holds only if its 0.1 fee is taken besides the -5 delta.
  const spotLegs = () => [
    spot({ coinName: "BTC", bizType: "deposit", deltaAmount: "10", afterAmount: "10" }),
    out("BTC", "-5", ["5", "50"], { fees: "0.1", afterAmount: "4.9", cTime: String(start + 1) }),
    into("USDT", "50", ["5", "50"], { afterAmount: "50", cTime: String(start + 1) })
  ]
  const fundingLegs = () => [funding({ coinName: "USDT", bizType: "deposit", deltaAmount: "7", afterAmount: "7" })]

  // Mutation: `known` computed with `some` for `every` (the given rules taken as the whole).
  it("infers the rule of an account the caller left out", () => {
    const result = eventsOf([...spotLegs(), ...fundingLegs()], { feeRules: { funding: "delta-includes-fees" } })
    expect(result.feeRules.spot).toBe("fees-subtracted")
    expect(result.feeRules.funding).toBe("delta-includes-fees")
    const trade = result.events.find((event) => event._tag === "Trade") as LedgerEvents.Trade
    expect(BigDecimal.format(trade.sent.amount)).toBe("5")
    expect(result.conserved).toBe(true)
  })

  // Mutation: `{ ...given, ...inferred }` (the inferred rule wins over the caller's).
  it("keeps the rule the caller gave over the one it would infer", () => {
    const result = eventsOf([...spotLegs(), ...fundingLegs()], { feeRules: { spot: "delta-includes-fees" } })
    expect(result.feeRules.spot).toBe("delta-includes-fees")
    expect(result.feeRules.funding).toBe("delta-includes-fees")
    const trade = result.events.find((event) => event._tag === "Trade") as LedgerEvents.Trade
    // Read as delta-includes-fees, the -5 holds the 0.1 fee: 4.9 sent.
    expect(BigDecimal.format(trade.sent.amount)).toBe("4.9")
  })

  // Mutation: an "undetermined" audit verdict kept as the rule (`account.rule === "undetermined"`
  // made false): a fee on an account's only bill leaves nothing to tell the rules apart by.
  it("reads an account whose fee the chain cannot place by the default rule", () => {
    const lone = [out("BTC", "-1", fill, { fees: "0.01" }), into("USDT", "100", fill)]
    const result = eventsOf(lone)
    expect(result.feeRules.spot).toBe("delta-includes-fees")
    const trade = result.events[0] as LedgerEvents.Trade
    expect(trade._tag).toBe("Trade")
    // Read as delta-includes-fees, the -1 holds the 0.01 fee: 0.99 sent.
    expect(BigDecimal.format(trade.sent.amount)).toBe("0.99")
  })

  it("all accounts given: nothing inferred, the caller's rules stand as given", () => {
    const given = { spot: "fees-added", funding: "delta-includes-fees" } as const
    expect(eventsOf([...spotLegs(), ...fundingLegs()], { feeRules: given }).feeRules).toEqual(given)
  })
})
