/**
 * An event of `LedgerEvents` as one row of the page's list: its kind, time, a sentence with the
 * exchange's amounts, the bills it came from, and whether a tax file writes it flagged.
 */
import { type LedgerEvents, TaxFiles } from "@account-bills/books"
import * as DateTime from "effect/DateTime"

/** One event as the page lists it. */
export interface EventRow {
  readonly kind: string
  readonly time: string
  readonly text: string
  /** `account:billId` of each bill the event came from. */
  readonly bills: ReadonlyArray<string>
  readonly flagged: boolean
}

const amount = (value: LedgerEvents.CoinAmount | undefined) =>
  value === undefined ? "" : `${TaxFiles.amountText(value.amount)} ${value.coin}`

const withFee = (fee: LedgerEvents.CoinAmount | undefined) => (fee === undefined ? "" : `, fee ${amount(fee)}`)

/** The sentence of an event. */
const describe = (event: LedgerEvents.LedgerEvent): string => {
  switch (event._tag) {
    case "Trade":
      return `${event.account}: sold ${amount(event.sent)} for ${amount(event.received)}${event.fees.map((fee) => `, fee ${amount(fee)}`).join("")}`
    case "InternalTransfer":
      return `${amount(event.amount)} from ${event.from} to ${event.to}`
    case "Deposit":
      return `${event.account}: deposit of ${amount(event.amount)}${withFee(event.fee)}`
    case "Withdrawal":
      return `${event.account}: withdrawal of ${amount(event.amount)}${withFee(event.fee)}`
    case "Fee":
      return `${event.account}: fee ${amount(event.amount)} (${event.bizType})`
    case "Income":
      return `${event.account}: income ${amount(event.amount)} (${event.bizType})`
    case "Loss":
      return `${event.account}: loss ${amount(event.amount)} (${event.bizType})`
    case "Other":
      return `${event.account}: unknown type ${event.bizType}, ${TaxFiles.amountText(event.change.amount)} ${event.change.coin}`
    case "Unpaired":
      return `${event.account}: ${event.bizType} unpaired (${event.reason}), ${TaxFiles.amountText(event.change.amount)} ${event.change.coin}${withFee(event.fee)}`
  }
}

/** The row of an event. */
export const eventRow = (event: LedgerEvents.LedgerEvent): EventRow => ({
  kind: event._tag,
  time: DateTime.formatIso(event.time),
  text: describe(event),
  bills: event.entries.map((entry) => `${entry.account}:${entry.bill.billId}`),
  flagged: event._tag === "Unpaired" || event._tag === "Other"
})
