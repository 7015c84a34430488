/**
 * One key's three accounts for the books tests, read back through the real client over the fake
 * exchange: funding and spot from the testing kit's linked generator (trades as two legs,
 * transfers between them with both legs, ties in one millisecond), where every fourth two-leg
 * movement keeps one leg only; the futures account from `generateContract`, which books the other
 * leg of each such lone transfer (a move between futures and spot or funding), besides realized
 * profits and losses, funding fees, opening fees and an incomeType the docs do not list.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Ledger } from "../../src/index.js"
import {
  BillGenerator,
  type ContractWireBill,
  type FundingWireBill,
  type SpotWireBill
} from "@account-bills/core/testing"
import { fakeStack } from "../../../core/test/support/fakeStack.js"

/** The bills of the three accounts as the exchange holds them, and the window they fall in. */
export interface FuturesBills {
  readonly funding: ReadonlyArray<FundingWireBill>
  readonly spot: ReadonlyArray<SpotWireBill>
  readonly contract: ReadonlyArray<ContractWireBill>
  readonly from: number
  readonly to: number
}

export interface FuturesAccounts extends FuturesBills {
  /** The ledger of the three accounts as the client read it from the fake exchange (v3). */
  readonly entries: ReadonlyArray<Ledger.LedgerEntry>
  /** `account\u0000coin` -> the last balance the exchange reported. */
  readonly finalBalances: ReadonlyMap<string, string>
}

const coins: ReadonlyArray<BillGenerator.CoinSpec> = [
  { coinId: 1, coinName: "USDT", decimals: 6 },
  { coinId: 2, coinName: "BTC", decimals: 8 },
  { coinId: 3, coinName: "1INCH", decimals: 4 }
]

const start = Date.UTC(2025, 4, 1)

/** `count` funding and spot bills and `contract` futures bills of their own over `days` days. */
export const futuresBills = (seed: number, count: number, contract: number, days = 4): FuturesBills => {
  const endMillis = start + days * 86_400_000
  const linked = BillGenerator.make({ seed, coins }).generateLinked({
    count,
    startMillis: start,
    endMillis,
    tieEvery: 7,
    dropLegEvery: 4
  })
  const paired = new Set(linked.transfers.flat())
  const lone = [...linked.funding, ...linked.spot].filter(
    (bill) => bill.bizType.startsWith("transfer_") && !paired.has(bill.billId)
  )
  const futures = BillGenerator.generateContract({
    count: contract,
    startMillis: start,
    endMillis,
    seed,
    coins,
    transfers: lone
  })
  // The contract legs trail their counterparts by up to 3 s: the window ends after the last.
  return { funding: linked.funding, spot: linked.spot, contract: futures, from: start, to: endMillis + 60_000 }
}

/** {@link futuresBills}, read back through the real client from the fake exchange. */
export const futuresAccounts = (seed: number, count: number, contract: number, days = 4): Promise<FuturesAccounts> => {
  const bills = futuresBills(seed, count, contract, days)
  return Effect.runPromise(
    Effect.gen(function* () {
      const entries = yield* Stream.runCollect(Ledger.stream({ from: bills.from, to: bills.to }))
      const finalBalances = new Map<string, string>()
      for (const [account, list] of [
        ["funding", bills.funding],
        ["spot", bills.spot],
        ["contract", bills.contract]
      ] as const) {
        // Each list is in chain order (time, then the order it was booked in).
        for (const bill of list) finalBalances.set(`${account}\u0000${bill.coinName}`, bill.afterAmount)
      }
      return { ...bills, entries: Chunk.toReadonlyArray(entries), finalBalances }
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
}
