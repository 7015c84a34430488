/**
 * The two operations of the Account Bill Ledger Query Interface and the facts about them
 * that the client, the fake exchange and the CLI all share.
 *
 * @since 0.1.0
 */

import type { BillKind } from "./BillKind.js"

/**
 * Name of one operation; rate limits and error messages are keyed by it.
 *
 * @since 0.1.0
 * @category models
 */
export type OperationName = "fundingBills" | "spotBills" | "contractBills"

/**
 * The operation that lists each account's bills.
 *
 * @since 0.2.0
 * @category constants
 */
export const operationOf: Readonly<Record<BillKind, OperationName>> = {
  funding: "fundingBills",
  spot: "spotBills",
  contract: "contractBills"
}

/**
 * bizType filter values the funding operation accepts.
 *
 * @since 0.1.0
 * @category constants
 */
export const fundingBizTypes = [
  "deposit",
  "withdraw",
  "transfer_in",
  "transfer_out",
  "buy",
  "sell",
  "c2c_buy",
  "c2c_sell"
] as const

/**
 * bizType filter values the spot operation accepts.
 *
 * @since 0.1.0
 * @category constants
 */
export const spotBizTypes = [
  "deposit",
  "withdraw",
  "transfer_in",
  "transfer_out",
  "trade_in",
  "trade_out",
  "order_fill_fee_income",
  "order_liquidate_fee_income"
] as const

/**
 * The shape of a business type filter: a letter, then letters, digits and underscores, at most 64
 * in all, as every documented value and every value seen in records (`rake_back_reward`,
 * `airdrop_reward`, `system_issued`) is. Values beyond the documented ones are sent as given: the
 * records carry more types than the docs list, and a filter by one of them is an assumption (see
 * docs/internals/exchange-rules.md); anything else (a space, a quote, an empty string) is refused
 * before it is sent.
 *
 * @since 0.2.0
 * @category constants
 */
export const bizTypePattern: RegExp = /^[A-Za-z][A-Za-z0-9_]{0,63}$/

/**
 * Whether `value` has the shape of a business type filter (`bizTypePattern`), documented or not.
 *
 * @since 0.2.0
 * @category utils
 */
export const isWellFormedBizType = (value: string): boolean => bizTypePattern.test(value)

/**
 * incomeType (v3) / businessType (v2) values the contract operation documents. The filter is
 * sent as given (the docs' list has grown between versions, so an unlisted value is not refused);
 * records with values beyond these are kept as they are. Source: the docs' GetContractBills page
 * (see docs/internals/futures-account.md).
 *
 * @since 0.2.0
 * @category constants
 */
export const contractIncomeTypes = [
  "deposit",
  "withdraw",
  "transfer_in",
  "transfer_out",
  "open_long",
  "open_short",
  "close_long",
  "close_short",
  "force_close_long",
  "force_close_short",
  "funding_fee",
  "trading_fee",
  "realized_pnl",
  "position_funding",
  "margin_move_in",
  "margin_move_out",
  "liquidation_fee",
  "adl_close_long",
  "adl_close_short",
  "bonus",
  "airdrop"
] as const

/**
 * An incomeType the contract operation documents.
 *
 * @since 0.2.0
 * @category models
 */
export type ContractIncomeType = (typeof contractIncomeTypes)[number]

/**
 * The widest window, end minus start in ms, the contract operation accepts: 100 days (ccxt's
 * weex `fetchLedger`: "the time range between startTime and endTime must not exceed 100 days").
 *
 * @since 0.2.0
 * @category constants
 */
export const contractMaxSpanMillis = 100 * 24 * 60 * 60 * 1000

/**
 * Where a walk of the futures account with no start begins: 2018-01-01T00:00:00Z, the year WEEX
 * opened, so no futures bill is older. The interface takes at most 100 days a request and tells
 * neither a total nor where the history starts, so a walk with no start asks every 100-day slice
 * back to it: from 1970 that was about 205 requests before the first bill, from here about 33.
 * Give `from` to start later. An assumption from public profiles of the exchange
 * (docs/internals/futures-account.md).
 *
 * @since 0.2.0
 * @category constants
 */
export const contractHistoryStartMillis = Date.UTC(2018, 0, 1)

/**
 * A bizType the funding operation accepts as a filter.
 *
 * @since 0.1.0
 * @category models
 */
export type FundingBizType = (typeof fundingBizTypes)[number]

/**
 * A bizType the spot operation accepts as a filter.
 *
 * @since 0.1.0
 * @category models
 */
export type SpotBizType = (typeof spotBizTypes)[number]

/**
 * Whether `value` is a funding bizType filter value.
 *
 * @since 0.1.0
 * @category utils
 */
export const isFundingBizType = (value: string): value is FundingBizType =>
  (fundingBizTypes as ReadonlyArray<string>).includes(value)

/**
 * Whether `value` is a spot bizType filter value.
 *
 * @since 0.1.0
 * @category utils
 */
export const isSpotBizType = (value: string): value is SpotBizType =>
  (spotBizTypes as ReadonlyArray<string>).includes(value)

/**
 * The largest page the interface allows (pageSize and limit).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxPageSize = 100
