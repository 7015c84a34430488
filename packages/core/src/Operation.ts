/**
 * The two operations of the Account Bill Ledger Query Interface and the facts about them
 * that the client, the fake exchange and the CLI all share.
 *
 * @since 0.1.0
 */

/**
 * Name of one operation; rate limits and error messages are keyed by it.
 *
 * @since 0.1.0
 * @category models
 */
export type OperationName = "fundingBills" | "spotBills"

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
