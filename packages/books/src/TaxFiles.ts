/**
 * Files that tax tools import, written from the ledger's events: Koinly's Universal template,
 * CoinTracking's CSV import and BittyTax's transaction records. Platform-free: each writer turns
 * events into CSV lines; where they go (a file, stdout) is the caller's business.
 *
 * Every row names the bill ids it came from. Internal transfers get no row (each tool treats a
 * move between one exchange's accounts as no event). Unpaired legs and unknown business types
 * are written single-sided with a marker (`UNPAIRED` / `UNKNOWN TYPE`) at the start of the
 * row's note. The layouts, time formats and fee conventions, with their sources, are in
 * `docs/internals/tax-files.md`.
 *
 * @since 0.2.0
 */
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import { Amount } from "@account-bills/core"
import type { CoinAmount, EventKind, LedgerEvent, LedgerEvents } from "./LedgerEvent.js"
import { eventKinds } from "./LedgerEvent.js"

/**
 * The tools a file can be written for.
 *
 * @since 0.2.0
 * @category models
 */
export type TaxFormat = "koinly" | "cointracking" | "bittytax"

/**
 * Every format, in the order the docs list them.
 *
 * @since 0.2.0
 * @category constants
 */
export const taxFormats: ReadonlyArray<TaxFormat> = ["koinly", "cointracking", "bittytax"]

/**
 * The header row of each tool's layout, as its documentation names the columns.
 *
 * @since 0.2.0
 * @category constants
 */
export const columns: Readonly<Record<TaxFormat, ReadonlyArray<string>>> = {
  koinly: [
    "Date",
    "Sent Amount",
    "Sent Currency",
    "Received Amount",
    "Received Currency",
    "Fee Amount",
    "Fee Currency",
    "Net Worth Amount",
    "Net Worth Currency",
    "Label",
    "Description",
    "TxHash"
  ],
  cointracking: [
    "Type",
    "Buy Amount",
    "Buy Currency",
    "Sell Amount",
    "Sell Currency",
    "Fee",
    "Fee Currency",
    "Exchange",
    "Trade-Group",
    "Comment",
    "Date"
  ],
  bittytax: [
    "Type",
    "Buy Quantity",
    "Buy Asset",
    "Buy Value in GBP",
    "Sell Quantity",
    "Sell Asset",
    "Sell Value in GBP",
    "Fee Quantity",
    "Fee Asset",
    "Fee Value in GBP",
    "Wallet",
    "Timestamp",
    "Note"
  ]
}

/**
 * The exchange's name as written in the rows (CoinTracking's Exchange, BittyTax's Wallet).
 *
 * @since 0.2.0
 * @category constants
 */
export const exchangeName = "WEEX"

/** A field as CSV writes it: quoted when it holds a comma, a quote or a line break. */
const csvField = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text)

/**
 * An amount as the files write it: every digit, no exponent, no trailing zeros; empty for none.
 *
 * @since 0.2.0
 * @category utils
 */
export const amountText = (amount: BigDecimal.BigDecimal | undefined): string =>
  amount === undefined ? "" : Amount.formatPlain(amount)

const pad = (n: number, width = 2) => String(n).padStart(width, "0")
const parts = (time: DateTime.Utc) => {
  const d = DateTime.toDateUtc(time)
  return {
    date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    minutes: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`,
    seconds: pad(d.getUTCSeconds()),
    millis: pad(d.getUTCMilliseconds(), 3)
  }
}

/**
 * Each tool's time format, in UTC: Koinly `YYYY-MM-DD HH:mm UTC` (its template's "Koinly
 * Date"), CoinTracking `YYYY-MM-DD HH:mm:ss`, BittyTax `YYYY-MM-DDTHH:MM:SS.mmm UTC`.
 *
 * @since 0.2.0
 * @category utils
 */
export const timeText = (format: TaxFormat, time: DateTime.Utc): string => {
  const { date, millis, minutes, seconds } = parts(time)
  switch (format) {
    case "koinly":
      return `${date} ${minutes} UTC`
    case "cointracking":
      return `${date} ${minutes}:${seconds}`
    case "bittytax":
      return `${date}T${minutes}:${seconds}.${millis} UTC`
  }
}

/**
 * Why an event is flagged in a file: a leg that could not be paired or matched, or a business
 * type we do not know.
 *
 * @since 0.2.0
 * @category models
 */
export type Flag = "UNPAIRED" | "UNKNOWN TYPE"

/**
 * The flag an event carries in a file, if any.
 *
 * @since 0.2.0
 * @category utils
 */
export const flagOf = (event: LedgerEvent): Flag | undefined =>
  event._tag === "Unpaired" ? "UNPAIRED" : event._tag === "Other" ? "UNKNOWN TYPE" : undefined

/**
 * The note every row carries: the flag if any, what the event is, and its bill ids.
 *
 * @since 0.2.0
 * @category utils
 */
export const noteOf = (event: LedgerEvent): string => {
  const ids = event.entries.map((entry) => `${entry.account}:${entry.bill.billId}`).join(" ")
  const what =
    event._tag === "Unpaired"
      ? `UNPAIRED ${event.bizType} (${event.reason})`
      : event._tag === "Other"
        ? `UNKNOWN TYPE ${event.bizType}`
        : event._tag === "InternalTransfer"
          ? `transfer ${event.from} to ${event.to}`
          : event._tag === "Trade"
            ? `${event.account} trade`
            : "bizType" in event
              ? `${event.account} ${event.bizType}`
              : `${event.account} ${event._tag.toLowerCase()}`
  return `${exchangeName} ${what}; bills ${ids}`
}

/** One side of a row: an amount and its coin, or nothing. */
type Side = CoinAmount | undefined

/**
 * A row before layout: what goes in, what goes out, the fee, in the tool's convention.
 */
interface Row {
  readonly type: string
  readonly received: Side
  readonly sent: Side
  readonly fee: Side
}

const minus = (a: CoinAmount, b: Side): CoinAmount =>
  b === undefined || b.coin !== a.coin ? a : { coin: a.coin, amount: BigDecimal.subtract(a.amount, b.amount) }
const plus = (a: CoinAmount, b: Side): CoinAmount =>
  b === undefined || b.coin !== a.coin ? a : { coin: a.coin, amount: BigDecimal.sum(a.amount, b.amount) }

/** A signed change as one side: positive is received, negative is sent. */
const signed = (coin: string, amount: BigDecimal.BigDecimal): { received: Side; sent: Side } =>
  BigDecimal.isNegative(amount)
    ? { received: undefined, sent: { coin, amount: BigDecimal.negate(amount) } }
    : { received: { coin, amount }, sent: undefined }

/**
 * A trade's fees as one fee column: tools take one fee a row. With a fee on each leg, the one in
 * the received coin is netted into the received amount (the balances come out the same).
 */
const tradeFee = (event: Extract<LedgerEvent, { _tag: "Trade" }>) => {
  const onSent = event.fees.find((fee) => fee.coin === event.sent.coin)
  const onReceived = event.fees.find((fee) => fee.coin === event.received.coin)
  return onSent !== undefined && onReceived !== undefined
    ? { fee: onSent, received: minus(event.received, onReceived) }
    : { fee: onSent ?? onReceived, received: event.received }
}

const typeNames: Readonly<Record<TaxFormat, Readonly<Record<string, string>>>> = {
  koinly: { income: "income", airdrop: "airdrop", cost: "cost", gain: "realized gain" },
  cointracking: {
    trade: "Trade",
    deposit: "Deposit",
    withdrawal: "Withdrawal",
    income: "Income",
    airdrop: "Airdrop",
    cost: "Other Fee",
    gain: "Derivatives / Futures Profit",
    loss: "Derivatives / Futures Loss"
  },
  bittytax: {
    trade: "Trade",
    deposit: "Deposit",
    withdrawal: "Withdrawal",
    income: "Income",
    airdrop: "Airdrop",
    cost: "Spend",
    gain: "Income",
    loss: "Spend"
  }
}

const incomeKind = (bizType: string): "airdrop" | "gain" | "income" =>
  bizType === "airdrop_reward" ? "airdrop" : /pnl|profit|realized|position_close/i.test(bizType) ? "gain" : "income"

/**
 * The row of an event in a tool's convention; undefined for an internal transfer (no row).
 *
 * Conventions (each tool's balance effect equals the event's):
 * - Koinly: sent excludes the fee, received is gross, the fee is taken besides; a deposit has
 *   no fee (its fee is netted into the amount received).
 * - CoinTracking: amounts include the fee (they are the balance changes); the fee column
 *   only tells.
 * - BittyTax: a fee in the sell asset is not in the sell quantity (net), a fee in the buy
 *   asset is in the buy quantity (gross); a deposit is gross of its fee, a withdrawal net.
 */
const rowOf = (format: TaxFormat, event: LedgerEvent): Row | undefined => {
  const names = typeNames[format]
  const name = (key: string) => names[key] ?? ""
  switch (event._tag) {
    case "InternalTransfer":
      return undefined
    case "Trade": {
      const { fee, received } = tradeFee(event)
      if (format === "cointracking") {
        return {
          type: name("trade"),
          received: minus(received, fee),
          sent: plus(event.sent, fee),
          fee
        }
      }
      return { type: name("trade"), received, sent: event.sent, fee }
    }
    case "Deposit":
      if (format === "bittytax")
        return { type: name("deposit"), received: event.amount, sent: undefined, fee: event.fee }
      if (format === "koinly")
        return { type: "", received: minus(event.amount, event.fee), sent: undefined, fee: undefined }
      return { type: name("deposit"), received: minus(event.amount, event.fee), sent: undefined, fee: event.fee }
    case "Withdrawal":
      if (format === "cointracking") {
        return { type: name("withdrawal"), received: undefined, sent: plus(event.amount, event.fee), fee: event.fee }
      }
      return { type: name("withdrawal"), received: undefined, sent: event.amount, fee: event.fee }
    case "Income":
      return { type: name(incomeKind(event.bizType)), received: event.amount, sent: undefined, fee: undefined }
    case "Fee":
      return { type: name("cost"), received: undefined, sent: event.amount, fee: undefined }
    case "Loss":
      return {
        type: format === "koinly" ? name("gain") : name("loss"),
        received: undefined,
        sent: event.amount,
        fee: undefined
      }
    case "Other":
    case "Unpaired": {
      const side = signed(event.change.coin, event.change.amount)
      return {
        type: format === "koinly" ? "" : side.sent !== undefined ? name("withdrawal") : name("deposit"),
        ...side,
        fee: undefined
      }
    }
  }
}

const cells = (format: TaxFormat, event: LedgerEvent, row: Row): ReadonlyArray<string> => {
  const note = noteOf(event)
  const when = timeText(format, event.time)
  const r = row.received
  const s = row.sent
  const f = row.fee
  switch (format) {
    case "koinly":
      return [
        when,
        amountText(s?.amount),
        s?.coin ?? "",
        amountText(r?.amount),
        r?.coin ?? "",
        amountText(f?.amount),
        f?.coin ?? "",
        "",
        "",
        row.type,
        note,
        ""
      ]
    case "cointracking": {
      const account = "account" in event ? event.account : ""
      return [
        row.type,
        amountText(r?.amount),
        r?.coin ?? "",
        amountText(s?.amount),
        s?.coin ?? "",
        amountText(f?.amount),
        f?.coin ?? "",
        exchangeName,
        account,
        note,
        when
      ]
    }
    case "bittytax":
      return [
        row.type,
        amountText(r?.amount),
        r?.coin ?? "",
        "",
        amountText(s?.amount),
        s?.coin ?? "",
        "",
        amountText(f?.amount),
        f?.coin ?? "",
        "",
        exchangeName,
        when,
        note
      ]
  }
}

/**
 * The CSV line of one event in `format` (newline included), or undefined when the tool takes no
 * row for it (an internal transfer).
 *
 * @since 0.2.0
 * @category utils
 */
export const line = (format: TaxFormat, event: LedgerEvent): string | undefined => {
  const row = rowOf(format, event)
  return row === undefined ? undefined : `${cells(format, event, row).map(csvField).join(",")}\n`
}

/**
 * The header line of `format`, newline included.
 *
 * @since 0.2.0
 * @category utils
 */
export const header = (format: TaxFormat): string => `${columns[format].join(",")}\n`

/**
 * The whole file: the header, then one line per event that takes a row, in time order.
 *
 * @since 0.2.0
 * @category utils
 */
export function* lines(format: TaxFormat, events: LedgerEvents): Generator<string> {
  yield header(format)
  for (const event of events.events) {
    const text = line(format, event)
    if (text !== undefined) yield text
  }
}

/**
 * Per coin: its bills, its events by kind, and whether the events conserve the bills' change.
 *
 * @since 0.2.0
 * @category models
 */
export interface CoinSummary {
  readonly coin: string
  readonly bills: number
  readonly events: Readonly<Record<EventKind, number>>
  readonly conserved: boolean
}

/**
 * An event a file flags, with its bill ids.
 *
 * @since 0.2.0
 * @category models
 */
export interface Flagged {
  readonly flag: Flag
  readonly event: LedgerEvent
  readonly billIds: ReadonlyArray<string>
}

/**
 * What a file rests on: per coin, and the events it flags.
 *
 * @since 0.2.0
 * @category models
 */
export interface Summary {
  readonly coins: ReadonlyArray<CoinSummary>
  readonly flagged: ReadonlyArray<Flagged>
  readonly conserved: boolean
}

const noEvents = (): Record<EventKind, number> =>
  Object.fromEntries(eventKinds.map((kind) => [kind, 0])) as Record<EventKind, number>

/**
 * The summary of the events: per coin (over every account) the bills, the events by kind (an
 * event touching two coins counts for each), the conservation result; and the flagged events.
 *
 * @since 0.2.0
 * @category utils
 */
export const summarize = (events: LedgerEvents): Summary => {
  const coins = new Map<string, { bills: number; events: Record<EventKind, number>; conserved: boolean }>()
  const coinRow = (coin: string) => {
    let row = coins.get(coin)
    if (row === undefined) {
      row = { bills: 0, events: noEvents(), conserved: true }
      coins.set(coin, row)
    }
    return row
  }
  for (const row of events.conservation) {
    const found = coinRow(row.coin)
    found.bills += row.bills
    found.conserved &&= row.conserved
  }
  const flagged: Array<Flagged> = []
  for (const event of events.events) {
    for (const coin of new Set(event.changes.map((change) => change.coin))) coinRow(coin).events[event._tag]++
    const flag = flagOf(event)
    if (flag !== undefined) flagged.push({ flag, event, billIds: event.entries.map((entry) => entry.bill.billId) })
  }
  return {
    coins: [...coins.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([coin, row]) => ({ coin, ...row })),
    flagged,
    conserved: events.conserved
  }
}
