/**
 * Ledger entries built from wire fields for the events and tax-file tests: each gets a fresh
 * bill id; what a test does not say takes a plain default.
 */
import * as Schema from "effect/Schema"
import { ContractBillFromWire, FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { Ledger } from "../../src/index.js"
import type { ContractWireBill, FundingWireBill, SpotWireBill } from "@account-bills/core/testing"

const toFunding = Schema.decodeUnknownSync(FundingBillFromWire)
const toSpot = Schema.decodeUnknownSync(SpotBillFromWire)
const toContract = Schema.decodeUnknownSync(ContractBillFromWire)

let nextId = 900_000_000_000_000_000n

/** Entries at `cTime` unless a bill says otherwise. */
export const entriesAt = (cTime: number) => ({
  spot: (fields: Partial<SpotWireBill> & Pick<SpotWireBill, "coinName" | "bizType" | "deltaAmount">) =>
    Ledger.spotEntry(
      toSpot({
        billId: String(nextId++),
        coinId: 1,
        afterAmount: "1000",
        fees: "0",
        fillSize: "0",
        fillValue: "0",
        cTime: String(cTime),
        ...fields
      })
    ),
  funding: (fields: Partial<FundingWireBill> & Pick<FundingWireBill, "coinName" | "bizType" | "deltaAmount">) =>
    Ledger.fundingEntry(
      toFunding({
        billId: String(nextId++),
        coinId: 1,
        afterAmount: "1000",
        fees: "0",
        fillSize: null,
        fillValue: null,
        cTime: String(cTime),
        ...fields
      })
    ),
  /** A futures bill, written in the v3 wire's names (`asset`, `incomeType`, `income`, `balance`). */
  contract: (fields: Partial<ContractWireBill> & Pick<ContractWireBill, "coinName" | "bizType" | "deltaAmount">) =>
    Ledger.contractEntry(
      toContract({
        billId: String(nextId++),
        asset: fields.coinName,
        symbol: fields.symbol ?? null,
        incomeType: fields.bizType,
        income: fields.deltaAmount,
        balance: fields.afterAmount ?? "1000",
        fillFee: fields.fees ?? "0",
        time: fields.cTime ?? String(cTime),
        transferReason: null,
        ...(fields.billId === undefined ? {} : { billId: fields.billId })
      })
    )
})
