/**
 * The audit's report: per account and coin, the bills, the balances, the fee rule and every
 * break found, as schemas so a report can be stored and read back.
 *
 * @since 0.1.0
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"
import type { ContractBill, FundingBill, SpotBill } from "@account-bills/core"
import { LedgerAccount } from "./LedgerEntry.js"

/**
 * How a bill's `fees` enters its balance, as the audit found it:
 * `delta-includes-fees` (after = before + delta), `fees-subtracted` (after = before + delta -
 * fees), `fees-added` (after = before + delta + fees, for fees written as negative amounts), or
 * `undetermined` when the data cannot tell (no fees, or every rule fits equally well).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FeeRule = Schema.Literal("delta-includes-fees", "fees-subtracted", "fees-added", "undetermined")

/**
 * How an account writes fees into its balances: a value of the `FeeRule` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type FeeRule = typeof FeeRule.Type

/**
 * Each rule as a formula, for people.
 *
 * @since 0.1.0
 * @category constants
 */
export const feeRuleFormula: Readonly<Record<FeeRule, string>> = {
  "delta-includes-fees": "after = before + delta",
  "fees-subtracted": "after = before + delta - fees",
  "fees-added": "after = before + delta + fees",
  undetermined: "undetermined"
}

/** Amounts in the report are normalized, so that a stored report reads back equal. */
const canonical = BigDecimal.normalize

/**
 * The fields of a bill that the audit speaks about.
 *
 * @since 0.1.0
 * @category schemas
 */
export class BillRef extends Schema.Class<BillRef>("@account-bills/core/BillRef")({
  billId: Schema.String,
  cTime: Schema.DateTimeUtc,
  bizType: Schema.String,
  deltaAmount: Schema.BigDecimal,
  fees: Schema.BigDecimal,
  afterAmount: Schema.BigDecimal
}) {
  /**
   * The reference to `bill`.
   *
   * @since 0.1.0
   */
  static fromBill(bill: FundingBill | SpotBill | ContractBill): BillRef {
    return new BillRef({
      billId: bill.billId,
      cTime: bill.cTime,
      bizType: bill.bizType,
      deltaAmount: canonical(bill.deltaAmount),
      fees: canonical(bill.fees),
      afterAmount: canonical(bill.afterAmount)
    })
  }
}

/**
 * A break in the chain: `later` does not start from the balance `earlier` ended with, so bills
 * between them are missing (or one of them is wrong).
 *
 * @since 0.1.0
 * @category schemas
 */
export class ChainBreak extends Schema.Class<ChainBreak>("@account-bills/core/ChainBreak")({
  /** The last bill before the break. */
  earlier: BillRef,
  /** The first bill after the break. */
  later: BillRef,
  /** The balance `later` should start from: `earlier.afterAmount`. */
  expectedBefore: Schema.BigDecimal,
  /** The balance `later` starts from under the rule: its afterAmount less its change. */
  foundBefore: Schema.BigDecimal
}) {
  /** What the bills missing between the two would add up to: found minus expected. */
  get difference(): BigDecimal.BigDecimal {
    return BigDecimal.normalize(BigDecimal.subtract(this.foundBefore, this.expectedBefore))
  }
}

/**
 * The audit of one account and coin.
 *
 * @since 0.1.0
 * @category schemas
 */
export class CoinAudit extends Schema.Class<CoinAudit>("@account-bills/core/CoinAudit")({
  account: LedgerAccount,
  /** The coin's id; the futures account names its assets and has none. */
  coinId: Schema.optional(Schema.Int),
  coinName: Schema.String,
  bills: Schema.NonNegativeInt,
  /** Bills with non-zero fees: the evidence for the rule. */
  feeBills: Schema.NonNegativeInt,
  firstTime: Schema.DateTimeUtc,
  lastTime: Schema.DateTimeUtc,
  /** The balance before the earliest bill (under the rule). */
  openingBalance: Schema.BigDecimal,
  /** The balance after the earliest bill. */
  firstBalance: Schema.BigDecimal,
  /** The balance after the latest bill. */
  lastBalance: Schema.BigDecimal,
  rule: FeeRule,
  breakCount: Schema.NonNegativeInt,
  /** The breaks found first, at most the audit's `maxBreaks`, earliest first. */
  breaks: Schema.Array(ChainBreak)
}) {
  /** The chain holds from the first bill to the last. */
  get whole(): boolean {
    return this.breakCount === 0
  }
}

/**
 * The audit of one account.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AccountAudit extends Schema.Class<AccountAudit>("@account-bills/core/AccountAudit")({
  account: LedgerAccount,
  bills: Schema.NonNegativeInt,
  /** The rule over all coins of the account. */
  rule: FeeRule,
  /** How many bills the exchange counts in the window (funding only: spot has no count). */
  total: Schema.optional(Schema.NonNegativeInt),
  coins: Schema.Array(CoinAudit)
}) {
  /** Every coin's chain holds, and the count matches where there is one. */
  get whole(): boolean {
    return this.coins.every((coin) => coin.whole) && (this.total === undefined || this.total === this.bills)
  }
}

/**
 * The result of an audit.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AuditReport extends Schema.Class<AuditReport>("@account-bills/core/AuditReport")({
  from: Schema.optional(Schema.DateTimeUtc),
  /** The end of the window as read (exclusive). */
  to: Schema.optional(Schema.DateTimeUtc),
  coinId: Schema.optional(Schema.Int),
  accounts: Schema.Array(AccountAudit),
  /** Every chain holds and every count matches. */
  whole: Schema.Boolean
}) {}
