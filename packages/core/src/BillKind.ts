/**
 * Which of the two accounts a bill belongs to: the one name the packages use for it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The funding account (`fundingBills`) or the spot account (`bills`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BillKind = Schema.Literal("funding", "spot")

/**
 * `"funding"` or `"spot"`: a value of the `BillKind` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type BillKind = typeof BillKind.Type
