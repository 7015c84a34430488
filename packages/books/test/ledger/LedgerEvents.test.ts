import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { Ledger, LedgerEvents } from "../../src/index.js"
import { BillGenerator, type FundingWireBill, type SpotWireBill } from "@account-bills/core/testing"
import { entriesAt } from "../support/ledgerEntries.js"
import { propertyParameters } from "../../../core/test/support/walkProperty.js"

const toFunding = Schema.decodeUnknownSync(FundingBillFromWire)
const toSpot = Schema.decodeUnknownSync(SpotBillFromWire)

const entriesOf = (wire: {
  readonly funding: ReadonlyArray<FundingWireBill>
  readonly spot: ReadonlyArray<SpotWireBill>
}): Array<Ledger.LedgerEntry> => [
  ...wire.funding.map((bill) => Ledger.fundingEntry(toFunding(bill))),
  ...wire.spot.map((bill) => Ledger.spotEntry(toSpot(bill)))
]

const eventsOf = (entries: ReadonlyArray<Ledger.LedgerEntry>, options?: LedgerEvents.EventsOptions) =>
  Effect.runSync(LedgerEvents.fromEntries(entries, options))

const start = 1_700_000_000_000

const { funding, spot } = entriesAt(start)

const idsOf = (event: LedgerEvents.LedgerEvent) => event.entries.map((entry) => entry.bill.billId)
const rule = { spot: "delta-includes-fees", funding: "delta-includes-fees" } as const

/** Per account and coin, the sum of the bills' deltas, computed apart from the module. */
const billSums = (entries: ReadonlyArray<Ledger.LedgerEntry>) => {
  const sums = new Map<string, BigDecimal.BigDecimal>()
  for (const { account, bill } of entries) {
    const key = `${account}/${bill.coinName}`
    sums.set(key, BigDecimal.sum(sums.get(key) ?? BigDecimal.make(0n, 0), bill.deltaAmount))
  }
  return sums
}
const eventSums = (events: ReadonlyArray<LedgerEvents.LedgerEvent>) => {
  const sums = new Map<string, BigDecimal.BigDecimal>()
  for (const event of events) {
    for (const { account, amount, coin } of event.changes) {
      const key = `${account}/${coin}`
      sums.set(key, BigDecimal.sum(sums.get(key) ?? BigDecimal.make(0n, 0), amount))
    }
  }
  return sums
}
const sameSums = (a: ReadonlyMap<string, BigDecimal.BigDecimal>, b: ReadonlyMap<string, BigDecimal.BigDecimal>) =>
  [...new Set([...a.keys(), ...b.keys()])].every((key) =>
    BigDecimal.equals(a.get(key) ?? BigDecimal.make(0n, 0), b.get(key) ?? BigDecimal.make(0n, 0))
  )

describe("LedgerEvents: trades", () => {
  it("pairs ccxt's live trade_out shape with its trade_in: fee on the in leg, sent and received gross", () => {
    const out = spot({
      coinName: "DOGE",
      bizType: "trade_out",
      deltaAmount: "-250.0",
      fillSize: "250.0",
      fillValue: "23.3725"
    })
    const into = spot({
      coinName: "USDT",
      bizType: "trade_in",
      deltaAmount: "23.3491275",
      fees: "0.0233725",
      fillSize: "250",
      fillValue: "23.37250"
    })
    const { conserved, events } = eventsOf([into, out], { feeRules: rule })
    expect(events).toHaveLength(1)
    const trade = events[0] as LedgerEvents.Trade
    expect(trade._tag).toBe("Trade")
    expect(BigDecimal.format(trade.sent.amount)).toBe("250")
    expect(trade.sent.coin).toBe("DOGE")
    expect(BigDecimal.format(trade.received.amount)).toBe("23.3725")
    expect(trade.fees.map((fee) => [fee.coin, BigDecimal.format(fee.amount)])).toEqual([["USDT", "0.0233725"]])
    expect(conserved).toBe(true)
  })

  it("leaves legs unpaired when pairings would report different trades", () => {
    const legs = [
      spot({ coinName: "BTC", bizType: "trade_out", deltaAmount: "-1", fillSize: "1", fillValue: "100" }),
      spot({ coinName: "ETH", bizType: "trade_out", deltaAmount: "-1", fillSize: "1", fillValue: "100" }),
      spot({ coinName: "USDT", bizType: "trade_in", deltaAmount: "100", fillSize: "1", fillValue: "100" }),
      spot({ coinName: "WXT", bizType: "trade_in", deltaAmount: "100", fillSize: "1", fillValue: "100" })
    ]
    const { events } = eventsOf(legs, { feeRules: rule })
    expect(events.map((event) => event._tag)).toEqual(["Unpaired", "Unpaired", "Unpaired", "Unpaired"])
    expect(events.every((event) => event._tag === "Unpaired" && event.reason === "ambiguous")).toBe(true)
  })

  it("pairs interchangeable legs (every pairing reports the same trades)", () => {
    const legs = [0, 1].flatMap(() => [
      spot({ coinName: "BTC", bizType: "trade_out", deltaAmount: "-1", fillSize: "1", fillValue: "100" }),
      spot({ coinName: "USDT", bizType: "trade_in", deltaAmount: "100", fillSize: "1", fillValue: "100" })
    ])
    expect(eventsOf(legs, { feeRules: rule }).events.map((event) => event._tag)).toEqual(["Trade", "Trade"])
  })

  it("does not pair legs whose fills differ, or that lie a millisecond apart", () => {
    const legs = [
      spot({ coinName: "BTC", bizType: "trade_out", deltaAmount: "-1", fillSize: "1", fillValue: "100" }),
      spot({ coinName: "USDT", bizType: "trade_in", deltaAmount: "100", fillSize: "1", fillValue: "101" }),
      spot({ coinName: "ETH", bizType: "trade_out", deltaAmount: "-2", fillSize: "2", fillValue: "5" }),
      spot({
        coinName: "USDT",
        bizType: "trade_in",
        deltaAmount: "5",
        fillSize: "2",
        fillValue: "5",
        cTime: String(start + 1)
      })
    ]
    const { events } = eventsOf(legs, { feeRules: rule })
    expect(events.map((event) => (event._tag === "Unpaired" ? event.reason : event._tag))).toEqual([
      "no-counterpart",
      "no-counterpart",
      "no-counterpart",
      "no-counterpart"
    ])
  })

  it("keeps funding buys and sells single-sided: no fill ties them to anything", () => {
    const { events } = eventsOf([
      funding({ coinName: "BTC", bizType: "buy", deltaAmount: "1" }),
      funding({ coinName: "USDT", bizType: "sell", deltaAmount: "-100" })
    ])
    expect(events.map((event) => event._tag === "Unpaired" && event.reason)).toEqual(["no-fill-data", "no-fill-data"])
  })
})

describe("LedgerEvents: transfers", () => {
  it("matches the nearest leg of the same coin and amount in another account, within the bound", () => {
    const out = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-10.5" })
    const near = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "10.50", cTime: String(start + 900) })
    const far = spot({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "10.5", cTime: String(start + 2000) })
    const otherCoin = spot({ coinName: "USDC", bizType: "transfer_in", deltaAmount: "10.5", cTime: String(start + 1) })
    const { events } = eventsOf([far, otherCoin, out, near])
    const transfer = events.find((event) => event._tag === "InternalTransfer")
    expect(transfer && idsOf(transfer)).toEqual([out.bill.billId, near.bill.billId])
    expect(transfer?._tag === "InternalTransfer" && [transfer.from, transfer.to]).toEqual(["funding", "spot"])
    expect(
      events
        .filter((event) => event._tag === "Unpaired")
        .flatMap(idsOf)
        .sort()
    ).toEqual([far.bill.billId, otherCoin.bill.billId].sort())
  })

  it("leaves a leg beyond the time bound, or in the same account, unmatched", () => {
    const out = funding({ coinName: "USDT", bizType: "transfer_out", deltaAmount: "-10" })
    const late = spot({
      coinName: "USDT",
      bizType: "transfer_in",
      deltaAmount: "10",
      cTime: String(start + LedgerEvents.defaultTransferWindowMillis + 1)
    })
    const same = funding({ coinName: "USDT", bizType: "transfer_in", deltaAmount: "10", cTime: String(start + 5) })
    const { events } = eventsOf([out, same, late])
    expect(events.map((event) => event._tag === "Unpaired" && event.reason)).toEqual([
      "no-matching-transfer",
      "no-matching-transfer",
      "no-matching-transfer"
    ])
  })
})

describe("LedgerEvents: the rest", () => {
  it("sorts deposits, withdrawals, fee income, rewards and unknown types, and never drops one", () => {
    const { events } = eventsOf([
      funding({ coinName: "BTC", bizType: "deposit", deltaAmount: "1" }),
      funding({ coinName: "BTC", bizType: "withdraw", deltaAmount: "-0.5", fees: "0.001" }),
      spot({ coinName: "USDT", bizType: "order_fill_fee_income", deltaAmount: "0.3" }),
      funding({ coinName: "WXT", bizType: "airdrop_reward", deltaAmount: "7" }),
      funding({ coinName: "WXT", bizType: "mystery_thing", deltaAmount: "-2" })
    ])
    // In one millisecond: funding first, then spot.
    expect(events.map((event) => event._tag)).toEqual(["Deposit", "Withdrawal", "Income", "Other", "Income"])
    const withdrawal = events[1] as LedgerEvents.Withdrawal
    // deltaAmount includes the fee (the default rule): 0.499 reached the other side.
    expect(BigDecimal.format(withdrawal.amount.amount)).toBe("0.499")
    expect(withdrawal.fee && BigDecimal.format(withdrawal.fee.amount)).toBe("0.001")
  })

  it("reads fees under the rule the audit infers: fees subtracted after the delta", () => {
    // The chain 0 -> 10 -> 4.9 holds only if the 0.1 fee is taken besides the -5 delta.
    const legs = [
      spot({ coinName: "BTC", bizType: "deposit", deltaAmount: "10", afterAmount: "10", cTime: String(start) }),
      spot({
        coinName: "BTC",
        bizType: "trade_out",
        deltaAmount: "-5",
        fees: "0.1",
        afterAmount: "4.9",
        fillSize: "5",
        fillValue: "50",
        cTime: String(start + 1)
      }),
      spot({
        coinName: "USDT",
        bizType: "trade_in",
        deltaAmount: "50",
        afterAmount: "50",
        fillSize: "5",
        fillValue: "50",
        cTime: String(start + 1)
      })
    ]
    const result = eventsOf(legs)
    expect(result.feeRules.spot).toBe("fees-subtracted")
    const trade = result.events.find((event) => event._tag === "Trade") as LedgerEvents.Trade
    expect(BigDecimal.format(trade.sent.amount)).toBe("5")
    expect(trade.fees.map((fee) => BigDecimal.format(fee.amount))).toEqual(["0.1"])
    expect(result.conserved).toBe(true)
    const btc = result.conservation.find((row) => row.coin === "BTC")
    expect(btc && BigDecimal.format(btc.billsChange)).toBe("4.9")
  })
})

const shape = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  count: fc.integer({ min: 0, max: 300 }),
  tieEvery: fc.constantFrom(undefined, 2, 3, 7),
  dropLegEvery: fc.constantFrom(undefined, 2, 5),
  gapMillis: fc.constantFrom<number>(5, 400, 60_000)
})

const linked = (input: typeof shape extends fc.Arbitrary<infer A> ? A : never) => {
  const generator = BillGenerator.make({ seed: input.seed })
  return generator.generateLinked({
    count: input.count,
    startMillis: start,
    endMillis: start + input.count * input.gapMillis,
    tieEvery: input.tieEvery,
    dropLegEvery: input.dropLegEvery
  })
}

describe("LedgerEvents: properties over generated accounts", () => {
  it("puts every bill in exactly one event and conserves every coin exactly", () => {
    fc.assert(
      fc.property(shape, (input) => {
        const wire = linked(input)
        const entries = entriesOf(wire)
        const result = eventsOf(entries)
        const ids = result.events.flatMap(idsOf).sort()
        expect(ids).toEqual(entries.map((entry) => entry.bill.billId).sort())
        expect(new Set(ids).size).toBe(ids.length)
        expect(sameSums(billSums(entries), eventSums(result.events))).toBe(true)
        expect(result.conserved).toBe(true)
      }),
      propertyParameters(50, 34)
    )
  })

  it("never pairs legs the data does not tie together", () => {
    fc.assert(
      fc.property(shape, (input) => {
        const { events } = eventsOf(entriesOf(linked(input)))
        for (const event of events) {
          if (event._tag === "Trade") {
            const [a, b] = event.entries as [Ledger.SpotEntry, Ledger.SpotEntry]
            expect(a.bill.cTime.epochMillis).toBe(b.bill.cTime.epochMillis)
            expect([a.bizType, b.bizType].sort()).toEqual(["trade_in", "trade_out"])
            expect(BigDecimal.equals(Option.getOrThrow(a.bill.fillSize), Option.getOrThrow(b.bill.fillSize))).toBe(true)
            expect(BigDecimal.equals(Option.getOrThrow(a.bill.fillValue), Option.getOrThrow(b.bill.fillValue))).toBe(
              true
            )
          }
          if (event._tag === "InternalTransfer") {
            const [a, b] = event.entries as [Ledger.LedgerEntry, Ledger.LedgerEntry]
            expect(a.account).not.toBe(b.account)
            expect(a.bill.coinName).toBe(b.bill.coinName)
            expect(BigDecimal.equals(a.bill.deltaAmount, BigDecimal.negate(b.bill.deltaAmount))).toBe(true)
            expect(Math.abs(a.bill.cTime.epochMillis - b.bill.cTime.epochMillis)).toBeLessThanOrEqual(
              LedgerEvents.defaultTransferWindowMillis
            )
          }
        }
      }),
      propertyParameters(50, 3434)
    )
  })

  it("without ties, finds exactly the trades and transfers the generator booked", () => {
    fc.assert(
      fc.property(
        shape.map((input) => ({ ...input, tieEvery: undefined, gapMillis: 60_000 })),
        (input) => {
          const wire = linked(input)
          const { events } = eventsOf(entriesOf(wire))
          const pairs = (tag: LedgerEvents.EventKind) =>
            events
              .filter((event) => event._tag === tag)
              .map((event) => idsOf(event).sort().join("+"))
              .sort()
          expect(pairs("Trade")).toEqual(wire.trades.map((pair) => [...pair].sort().join("+")).sort())
          // A transfer leg of the same coin and amount as another transfer bill could be either's
          // partner; the pairs with no such twin must come out exactly as booked.
          const twins = new Map<string, number>()
          const twinKey = (bill: { coinName: string; deltaAmount: string }) =>
            `${bill.coinName}/${BigDecimal.format(BigDecimal.abs(BigDecimal.unsafeFromString(bill.deltaAmount)))}`
          const transfersBills = [...wire.funding, ...wire.spot].filter((bill) => bill.bizType.startsWith("transfer_"))
          for (const bill of transfersBills) twins.set(twinKey(bill), (twins.get(twinKey(bill)) ?? 0) + 1)
          const clear = new Set(
            transfersBills.filter((bill) => twins.get(twinKey(bill)) === 2).map((bill) => bill.billId)
          )
          const booked = wire.transfers.filter(([out]) => clear.has(out)).map((pair) => [...pair].sort().join("+"))
          const found = pairs("InternalTransfer").filter((pair) => pair.split("+").some((id) => clear.has(id)))
          expect(found).toEqual(booked.sort())
        }
      ),
      propertyParameters(40, 343)
    )
  })
})
