/**
 * The order in which a listing returns bills: the one name the packages use for it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * By `cTime` (then `billId`), newest first or oldest first. The interface does not document which
 * one the exchange uses, so the walks learn it from what they are sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListOrder = Schema.Literal("newest-first", "oldest-first")

/**
 * `"newest-first"` or `"oldest-first"`: a value of the `ListOrder` schema.
 *
 * @since 0.1.0
 * @category models
 */
export type ListOrder = typeof ListOrder.Type
