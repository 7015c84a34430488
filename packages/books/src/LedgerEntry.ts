/**
 * Entries of the ledger: each bill tagged with its account and a normalized kind, and the
 * query that chooses them.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { BillKind, type ContractBill, type FundingBill, type SpotBill, type TimeInput } from "@account-bills/core"

/**
 * The two accounts whose bills the ledger holds.
 *
 * @deprecated since 0.1.0: use `BillKind`, the one name for this concept; this alias goes in 0.2.
 * @since 0.1.0
 * @category schemas
 */
export const LedgerAccount = BillKind

/**
 * The two accounts whose bills the ledger holds.
 *
 * @deprecated since 0.1.0: use `BillKind`.
 * @since 0.1.0
 * @category models
 */
export type LedgerAccount = BillKind

/**
 * What a bill does, whatever bizType the account writes it with.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EntryKind = Schema.Literal("deposit", "withdrawal", "transfer", "trade", "fee", "income", "other")

/**
 * What a bill does (`"deposit"`, `"withdrawal"`, `"transfer"`, `"trade"`, `"fee"`, `"income"` (since 0.2.0: realized profit or loss, funding, either sign), `"other"`): a value of the `EntryKind` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type EntryKind = typeof EntryKind.Type

const kinds: Readonly<Record<string, EntryKind>> = {
  deposit: "deposit",
  withdraw: "withdrawal",
  transfer_in: "transfer",
  transfer_out: "transfer",
  buy: "trade",
  sell: "trade",
  c2c_buy: "trade",
  c2c_sell: "trade",
  trade_in: "trade",
  trade_out: "trade",
  order_fill_fee_income: "fee",
  order_liquidate_fee_income: "fee",
  // The futures account's documented incomeTypes (docs/internals/futures-account.md says which
  // of these readings are assumptions). Opening a position books its trading fee; closing one
  // books the realized profit or loss; funding is paid or received, the sign says which.
  position_open_long: "fee",
  position_open_short: "fee",
  position_close_long: "income",
  position_close_short: "income",
  position_funding: "income",
  // Collateral moved inside the futures account, and the liquidation steps: no money in or out.
  margin_move_in: "other",
  margin_move_out: "other",
  start_liquidate: "other",
  finish_liquidate: "other",
  order_fix_margin_amount: "income",
  tracking_follow_pay: "fee",
  tracking_system_pre_receive: "other",
  tracking_follow_back: "income",
  tracking_trader_income: "income",
  tracking_third_party_share: "fee"
}

/**
 * The kind of a bizType (or a futures incomeType): the documented values by table; undocumented ones that name a fee
 * are fees, the rest (`airdrop_reward`, `system_issued`, ...) are `other`.
 *
 * @since 0.1.0
 * @category utils
 */
export const kindOf = (bizType: string): EntryKind => kinds[bizType] ?? (/fee/i.test(bizType) ? "fee" : "other")

/**
 * A funding bill in the ledger.
 *
 * @since 0.1.0
 * @category models
 */
export interface FundingEntry {
  readonly account: "funding"
  readonly kind: EntryKind
  /** The bizType as the exchange sent it. */
  readonly bizType: string
  readonly bill: FundingBill
}

/**
 * A spot bill in the ledger.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotEntry {
  readonly account: "spot"
  readonly kind: EntryKind
  /** The bizType as the exchange sent it. */
  readonly bizType: string
  readonly bill: SpotBill
}

/**
 * A futures (contract) bill in the ledger.
 *
 * @since 0.2.0
 * @category models
 */
export interface ContractEntry {
  readonly account: "contract"
  readonly kind: EntryKind
  /** The incomeType (v3) / businessType (v2) as the exchange sent it. */
  readonly bizType: string
  readonly bill: ContractBill
}

/**
 * One bill of any of the three accounts, tagged with its account and kind.
 *
 * @since 0.1.0
 * @category models
 */
export type LedgerEntry = FundingEntry | SpotEntry | ContractEntry

/**
 * A funding bill as a ledger entry.
 *
 * @since 0.1.0
 * @category utils
 */
export const fundingEntry = (bill: FundingBill): FundingEntry => ({
  account: "funding",
  kind: kindOf(bill.bizType),
  bizType: bill.bizType,
  bill
})

/**
 * A spot bill as a ledger entry.
 *
 * @since 0.1.0
 * @category utils
 */
export const spotEntry = (bill: SpotBill): SpotEntry => ({
  account: "spot",
  kind: kindOf(bill.bizType),
  bizType: bill.bizType,
  bill
})

/**
 * A contract bill as a ledger entry.
 *
 * @since 0.2.0
 * @category utils
 */
export const contractEntry = (bill: ContractBill): ContractEntry => ({
  account: "contract",
  kind: kindOf(bill.bizType),
  bizType: bill.bizType,
  bill
})

/**
 * What the ledger covers: the half-open window `[from, to)`, optionally one coin, one account
 * or all three (default all). `to` defaults to, and is capped at, the time the ledger starts.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerQuery {
  readonly from?: TimeInput | undefined
  readonly to?: TimeInput | undefined
  readonly coinId?: number | undefined
  /** One account, several (since 0.2.0), or `"all"` three (the default). */
  readonly account?: LedgerAccount | ReadonlyArray<LedgerAccount> | "all" | undefined
}
