/**
 * Which of the three accounts a bill belongs to: the one name the packages use for it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The funding account (`fundingBills`), the spot account (`bills`) or the futures account
 * (`contractBills`, on the contract interface's own host; since 0.2.0).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BillKind = Schema.Literal("funding", "spot", "contract")

/**
 * `"funding"`, `"spot"` or `"contract"`: a value of the `BillKind` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type BillKind = typeof BillKind.Type
