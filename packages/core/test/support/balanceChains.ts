/**
 * The check both bill generators must pass: balances chain exactly, coin by coin.
 */
import { expect } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import type { WireBill } from "../../src/testing/index.js"

const decimal = (text: string): BigDecimal.BigDecimal => BigDecimal.unsafeFromString(text)

/**
 * Every bill's afterAmount is its coin's previous afterAmount plus its deltaAmount, in exact
 * decimals, and no balance goes below zero; `eachBill` checks more of every bill on the way.
 */
export const expectExactChains = (bills: ReadonlyArray<WireBill>, eachBill: (bill: WireBill) => void = () => {}) => {
  const balances = new Map<number, BigDecimal.BigDecimal>()
  for (const bill of bills) {
    const before = balances.get(bill.coinId) ?? BigDecimal.make(0n, 0)
    const after = decimal(bill.afterAmount)
    expect(BigDecimal.equals(BigDecimal.sum(before, decimal(bill.deltaAmount)), after), bill.billId).toBe(true)
    expect(BigDecimal.isNegative(after)).toBe(false)
    eachBill(bill)
    balances.set(bill.coinId, after)
  }
}
