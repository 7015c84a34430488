/**
 * The testing kit's trader account (`TraderAccount`), read back through the real client from the
 * fake exchange and turned into events by the books' own rules: every trade pairs with its fee on
 * the leg received, every transfer between the three accounts matches both legs, the futures
 * account books fees, funding and profit or loss all year, balances chain and stay in a person's
 * range, and a seed names the bills.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Ledger, LedgerEvents } from "../../src/index.js"
import {
  TraderAccount,
  type ContractWireBill,
  type FundingWireBill,
  type SpotWireBill
} from "@account-bills/core/testing"
import { fakeStack } from "../../../core/test/support/fakeStack.js"

const year = { seed: 11, funding: 300, spot: 900, contract: 450, endMillis: Date.UTC(2025, 11, 31, 23, 59, 59, 999) }
const startMillis = Date.UTC(2025, 0, 1)

let bills: TraderAccount.TraderBills
let events: LedgerEvents.LedgerEvents
beforeAll(async () => {
  bills = TraderAccount.ofYear(year)
  events = await Effect.runPromise(
    Effect.gen(function* () {
      const entries = yield* Stream.runCollect(Ledger.stream({ from: startMillis, to: year.endMillis + 60_000 }))
      return yield* LedgerEvents.fromEntries(Chunk.toReadonlyArray(entries))
    }).pipe(
      Effect.provide(
        fakeStack(
          {
            exchange: {
              rateLimit: false,
              bills: { funding: bills.funding, spot: bills.spot, contract: bills.contract }
            }
          },
          "v3"
        )
      )
    )
  )
}, 60_000)

const decimal = (text: string) => BigDecimal.unsafeFromString(text)
const accounts = () =>
  [
    ["funding", bills.funding],
    ["spot", bills.spot],
    ["contract", bills.contract]
  ] as const satisfies ReadonlyArray<
    readonly [string, ReadonlyArray<FundingWireBill | SpotWireBill | ContractWireBill>]
  >

/** The most a person plausibly holds of each coin in one account. */
const ceilings: Readonly<Record<string, number>> = { USDT: 100_000, BTC: 5, ETH: 50, WXT: 1_000_000 }

describe("TraderAccount", () => {
  it("holds exactly the bills asked for, and the same seed gives the same bills", () => {
    expect([bills.funding.length, bills.spot.length, bills.contract.length]).toEqual([300, 900, 450])
    expect(TraderAccount.ofYear(year)).toEqual(bills)
    const other = TraderAccount.ofYear({ ...year, seed: 12 })
    expect(other.spot).not.toEqual(bills.spot)
    // Two accounts (two seeds) share no bill id, as two keys' accounts on the exchange do not.
    const ids = (of: TraderAccount.TraderBills) =>
      [...of.funding, ...of.spot, ...of.contract].map((bill) => bill.billId)
    const mine = new Set(ids(bills))
    expect(mine.size).toBe(1_650)
    expect(ids(other).filter((id) => mine.has(id))).toEqual([])
  })

  it("holds exactly the bills asked for however few, balances never below zero", () => {
    const shapes = [
      [7, 3, 5],
      [0, 5, 0],
      [1, 1, 1],
      [0, 0, 4],
      [2, 0, 0],
      [0, 1, 3],
      [120, 80, 100],
      [30, 20, 25]
    ] as const
    for (const [funding, spot, contract] of shapes) {
      const account = TraderAccount.make({ seed: funding + spot + contract })
      for (const from of [startMillis, startMillis + 86_400_000]) {
        // Two batches: the second continues the first's balances.
        const batch = account.generate({
          funding,
          spot,
          contract,
          startMillis: from,
          endMillis: from + 86_400_000 - 1
        })
        expect([batch.funding.length, batch.spot.length, batch.contract.length]).toEqual([funding, spot, contract])
        for (const bill of [...batch.funding, ...batch.spot, ...batch.contract]) {
          expect(bill.afterAmount.startsWith("-"), `${funding}/${spot}/${contract} ${bill.billId}`).toBe(false)
        }
      }
    }
  })

  it("chains every balance exactly, never below zero, in amounts a person holds", () => {
    for (const [account, list] of accounts()) {
      const last = new Map<string, BigDecimal.BigDecimal>()
      let previous: { readonly time: number; readonly id: bigint } | undefined
      for (const bill of list) {
        const before = last.get(bill.coinName) ?? BigDecimal.make(0n, 0)
        const after = decimal(bill.afterAmount)
        expect(BigDecimal.equals(after, BigDecimal.sum(before, decimal(bill.deltaAmount))), bill.billId).toBe(true)
        expect(BigDecimal.isNegative(after), `${account} ${bill.billId}`).toBe(false)
        expect(BigDecimal.unsafeToNumber(after), `${account} ${bill.coinName}`).toBeLessThan(
          ceilings[bill.coinName] ?? 0
        )
        last.set(bill.coinName, after)
        const here = { time: Number(bill.cTime), id: BigInt(bill.billId) }
        if (previous !== undefined) {
          expect(here.time).toBeGreaterThanOrEqual(previous.time)
          expect(here.id > previous.id).toBe(true)
        }
        previous = here
      }
    }
    // Not dust either: the year ends with something in each account.
    const usdt = (list: ReadonlyArray<{ readonly coinName: string; readonly afterAmount: string }>) =>
      Number(list.filter((bill) => bill.coinName === "USDT").at(-1)?.afterAmount ?? 0)
    expect(usdt(bills.funding) + usdt(bills.spot) + usdt(bills.contract)).toBeGreaterThan(1_000)
  })

  it("pairs every trade as generated, the fee on the leg received", () => {
    const unpaired = events.events.filter((event) => event._tag === "Unpaired")
    expect(unpaired.map((event) => `${event.account} ${event.bizType} ${event.reason}`)).toEqual([])
    const trades = events.events.flatMap((event) => (event._tag === "Trade" ? [event] : []))
    expect(trades.length).toBe(bills.trades.length)
    expect(trades.length).toBeGreaterThan(400)
    const legs = (event: (typeof trades)[number]) => {
      const out = event.entries.find((entry) => entry.bizType === "trade_out")
      const into = event.entries.find((entry) => entry.bizType === "trade_in")
      return `${out?.bill.billId}/${into?.bill.billId}`
    }
    expect(new Set(trades.map(legs))).toEqual(new Set(bills.trades.map(([out, into]) => `${out}/${into}`)))
    for (const trade of trades) {
      expect(trade.fees.map((fee) => fee.coin)).toEqual([trade.received.coin])
      expect(BigDecimal.isPositive(trade.fees[0]?.amount ?? BigDecimal.make(0n, 0))).toBe(true)
    }
  })

  it("matches every transfer's two legs, between each two of the three accounts both ways", () => {
    const transfers = events.events.flatMap((event) => (event._tag === "InternalTransfer" ? [event] : []))
    expect(transfers.length).toBe(bills.transfers.length)
    const ids = (list: ReadonlyArray<string | undefined>) => [...list].sort().join("/")
    expect(new Set(transfers.map((event) => ids(event.entries.map((entry) => entry.bill.billId))))).toEqual(
      new Set(bills.transfers.map((legs) => ids(legs.map((leg) => leg.billId))))
    )
    const routes = new Set(transfers.map((event) => `${event.from}>${event.to}`))
    for (const route of [
      "funding>spot",
      "spot>funding",
      "funding>contract",
      "contract>funding",
      "spot>contract",
      "contract>spot"
    ]) {
      expect(routes, route).toContain(route)
    }
  })

  it("books deposits, withdrawals with their fee, and futures fees, funding and profit or loss in every month", () => {
    const kinds = new Set(events.events.map((event) => event._tag))
    for (const kind of ["Trade", "InternalTransfer", "Deposit", "Withdrawal", "Fee", "Income", "Loss"]) {
      expect(kinds, kind).toContain(kind)
    }
    const month = (bill: { readonly cTime: string }) => new Date(Number(bill.cTime)).getUTCMonth()
    for (let m = 0; m < 12; m++) {
      const types = bills.contract.filter((bill) => month(bill) === m)
      const signs = (prefix: string) =>
        new Set(types.filter((bill) => bill.bizType.startsWith(prefix)).map((bill) => bill.deltaAmount.startsWith("-")))
      expect(signs("position_open_"), `opening fees in month ${m + 1}`).toEqual(new Set([true]))
      expect(signs("position_close_").size, `closes in month ${m + 1}`).toBeGreaterThan(0)
      expect(signs("position_funding").size, `funding in month ${m + 1}`).toBeGreaterThan(0)
      expect(bills.funding.some((bill) => month(bill) === m && bill.bizType === "deposit")).toBe(true)
    }
    const signs = (prefix: string) =>
      new Set(
        bills.contract.filter((bill) => bill.bizType.startsWith(prefix)).map((bill) => bill.deltaAmount[0] === "-")
      )
    expect(signs("position_close_")).toEqual(new Set([true, false]))
    expect(signs("position_funding")).toEqual(new Set([true, false]))
    // Each withdrawal pays its network's fee, in its coin.
    const withdrawals = events.events.flatMap((event) => (event._tag === "Withdrawal" ? [event] : []))
    expect(withdrawals.length).toBeGreaterThan(20)
    for (const withdrawal of withdrawals) expect(withdrawal.fee?.coin).toBe(withdrawal.amount.coin)
  })
})
