/**
 * `bills audit --format json`: the audit as one JSON object on standard output, for scripts. Its
 * shape is the `AuditOutput` schema: the core's `AuditReport` as encoded (amounts as decimal
 * strings, times as ISO-8601), what a store holds when read from one, and the events' summary.
 *
 * @since 0.2.0
 */
import { Ledger, type LedgerEvents } from "@account-bills/books"
import * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"

/**
 * Per account and coin, whether the events conserve the bills' balance change.
 *
 * @since 0.2.0
 * @category schemas
 */
export const AuditConservation = Schema.Struct({
  account: Schema.String,
  coin: Schema.String,
  bills: Schema.NonNegativeInt,
  billsChange: Schema.BigDecimal,
  eventsChange: Schema.BigDecimal,
  conserved: Schema.Boolean
})

/**
 * The events of the audited bills: how many, trades paired and legs unpaired, transfers matched
 * and legs unmatched (as `account:billId`), and each account and coin's conservation.
 *
 * @since 0.2.0
 * @category schemas
 */
export const AuditEvents = Schema.Struct({
  events: Schema.NonNegativeInt,
  bills: Schema.NonNegativeInt,
  tradesPaired: Schema.NonNegativeInt,
  legsUnpaired: Schema.Array(Schema.String),
  transfersMatched: Schema.NonNegativeInt,
  transfersUnmatched: Schema.Array(Schema.String),
  conservation: Schema.Array(AuditConservation),
  conserved: Schema.Boolean
})

/**
 * What `bills audit --format json` prints: `whole` (the exit code is 3 when false), the report,
 * one phrase per kind a store holds (empty when read from the exchange), and the events (`null`
 * with `--coin-id`, which cannot pair a trade's two coins).
 *
 * @since 0.2.0
 * @category schemas
 */
export const AuditOutput = Schema.Struct({
  whole: Schema.Boolean,
  report: Ledger.AuditReport,
  store: Schema.Array(Schema.String),
  events: Schema.NullOr(AuditEvents)
})

/**
 * The decoded form of `AuditOutput`.
 *
 * @since 0.2.0
 * @category models
 */
export type AuditOutput = typeof AuditOutput.Type

/**
 * The events' summary of `AuditOutput`, from the events of the audited bills.
 *
 * @since 0.2.0
 * @category utils
 */
export const auditEvents = (result: LedgerEvents.LedgerEvents): typeof AuditEvents.Type => {
  const unpaired = result.events.filter((event) => event._tag === "Unpaired")
  const ids = (events: ReadonlyArray<LedgerEvents.LedgerEvent>) =>
    events.flatMap((event) => event.entries.map((entry) => `${entry.account}:${entry.bill.billId}`))
  return {
    events: result.events.length,
    bills: result.conservation.reduce((sum, row) => sum + row.bills, 0),
    tradesPaired: result.events.filter((event) => event._tag === "Trade").length,
    legsUnpaired: ids(unpaired.filter((event) => event.reason !== "no-matching-transfer")),
    transfersMatched: result.events.filter((event) => event._tag === "InternalTransfer").length,
    transfersUnmatched: ids(unpaired.filter((event) => event.reason === "no-matching-transfer")),
    conservation: result.conservation.map((row) => ({
      ...row,
      billsChange: BigDecimal.normalize(row.billsChange),
      eventsChange: BigDecimal.normalize(row.eventsChange)
    })),
    conserved: result.conserved
  }
}

/**
 * The output as one line of JSON.
 *
 * @since 0.2.0
 * @category utils
 */
export const auditJson = (output: AuditOutput): string => JSON.stringify(Schema.encodeSync(AuditOutput)(output))
