/**
 * The events of a ledger: what happened to one key's accounts, each event made of the bills
 * (ledger entries) it came from and the exact balance changes it makes per account and coin.
 * Every bill is in exactly one event; per account and coin the events' changes add up to the
 * bills' own balance changes.
 *
 * Coins are keyed by `coinName` (the futures account has no `coinId`).
 *
 * @since 0.2.0
 */
import type * as BigDecimal from "effect/BigDecimal"
import type * as DateTime from "effect/DateTime"
import type { FeeRule } from "./AuditReport.js"
import type { LedgerEntry } from "./LedgerEntry.js"

/**
 * An account of the key: `"funding"`, `"spot"` (and `"contract"`, the futures account).
 *
 * @since 0.2.0
 * @category models
 */
export type EventAccount = LedgerEntry["account"]

/**
 * A fee rule the data was read under (the audit's `FeeRule` less `"undetermined"`).
 *
 * @since 0.2.0
 * @category models
 */
export type ReadRule = Exclude<FeeRule, "undetermined">

/**
 * An amount of one coin, exact.
 *
 * @since 0.2.0
 * @category models
 */
export interface CoinAmount {
  /** The coin's name as the exchange writes it (`"USDT"`). */
  readonly coin: string
  /** Never negative: the direction is in the field that holds it (sent, received, fee). */
  readonly amount: BigDecimal.BigDecimal
}

/**
 * One balance change an event makes: `amount` (signed) on `coin` in `account`.
 *
 * @since 0.2.0
 * @category models
 */
export interface BalanceChange {
  readonly account: EventAccount
  readonly coin: string
  readonly amount: BigDecimal.BigDecimal
}

interface EventBase {
  /** The time of the event: the earliest of its bills. */
  readonly time: DateTime.Utc
  /** The bills the event came from, in the order the ledger gave them. */
  readonly entries: ReadonlyArray<LedgerEntry>
  /**
   * What the event does to the balances, per account and coin (one change per account and coin
   * it touches, fees included): the sum of these over all events equals the bills' own changes.
   */
  readonly changes: ReadonlyArray<BalanceChange>
}

/**
 * A trade: the two legs of one fill in one account, `sent` given, `received` got, and the fees
 * the legs carry. The balances change by `-sent`, `+received` and `-fee` for each fee.
 *
 * @since 0.2.0
 * @category models
 */
export interface Trade extends EventBase {
  readonly _tag: "Trade"
  readonly account: EventAccount
  /** Gross: what left the account for the other coin, the fee not included. */
  readonly sent: CoinAmount
  /** Gross: what the other coin bought, before a fee taken from it. */
  readonly received: CoinAmount
  /** Zero, one or two (one per leg that carries a fee). */
  readonly fees: ReadonlyArray<CoinAmount>
}

/**
 * A move between two of the key's own accounts: the `transfer_out` leg in `from` and the leg it
 * matched in `to` (same coin, same amount, close in time). Not a disposal.
 *
 * @since 0.2.0
 * @category models
 */
export interface InternalTransfer extends EventBase {
  readonly _tag: "InternalTransfer"
  readonly from: EventAccount
  readonly to: EventAccount
  readonly amount: CoinAmount
}

/**
 * Coins that came in from outside the key's accounts (`deposit`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Deposit extends EventBase {
  readonly _tag: "Deposit"
  readonly account: EventAccount
  readonly amount: CoinAmount
  /** Charged on the deposit itself, if the bill says so. */
  readonly fee: CoinAmount | undefined
}

/**
 * Coins that left the key's accounts (`withdraw`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Withdrawal extends EventBase {
  readonly _tag: "Withdrawal"
  readonly account: EventAccount
  /** Gross of the fee: what reached the other side. */
  readonly amount: CoinAmount
  readonly fee: CoinAmount | undefined
}

/**
 * A cost on its own: a bill that only takes a fee (a futures funding fee paid, a fee bill).
 *
 * @since 0.2.0
 * @category models
 */
export interface Fee extends EventBase {
  readonly _tag: "Fee"
  readonly account: EventAccount
  readonly amount: CoinAmount
  readonly bizType: string
}

/**
 * Income: fee income, a reward or airdrop, a futures realized profit or funding fee received.
 *
 * @since 0.2.0
 * @category models
 */
export interface Income extends EventBase {
  readonly _tag: "Income"
  readonly account: EventAccount
  readonly amount: CoinAmount
  readonly bizType: string
}

/**
 * A futures realized loss (a negative realized PnL): a loss, not a fee.
 *
 * @since 0.2.0
 * @category models
 */
export interface Loss extends EventBase {
  readonly _tag: "Loss"
  readonly account: EventAccount
  readonly amount: CoinAmount
  readonly bizType: string
}

/**
 * A bill whose business type we do not know: kept, with its signed balance change, never dropped.
 *
 * @since 0.2.0
 * @category models
 */
export interface Other extends EventBase {
  readonly _tag: "Other"
  readonly account: EventAccount
  readonly bizType: string
  /** Signed, fees included. */
  readonly change: BalanceChange
}

/**
 * Why a leg stands alone.
 *
 * @since 0.2.0
 * @category models
 */
export type UnpairedReason =
  /** No leg of the other direction fits it (same account, millisecond, fill). */
  | "no-counterpart"
  /** Several pairings were possible and they would report different trades. */
  | "ambiguous"
  /** A funding `buy`/`sell`/`c2c_*` bill: no fill data ties it to another bill. */
  | "no-fill-data"
  /** A transfer whose other leg is not among the bills (another account, or outside the window). */
  | "no-matching-transfer"

/**
 * A trade leg that could not be paired, or a transfer leg that could not be matched: reported
 * single-sided, never paired by guess.
 *
 * @since 0.2.0
 * @category models
 */
export interface Unpaired extends EventBase {
  readonly _tag: "Unpaired"
  readonly account: EventAccount
  readonly bizType: string
  readonly reason: UnpairedReason
  /** Signed, fees included. */
  readonly change: BalanceChange
  /** The fee on the bill, if any (already inside `change`). */
  readonly fee: CoinAmount | undefined
}

/**
 * One event of the ledger.
 *
 * @since 0.2.0
 * @category models
 */
export type LedgerEvent = Trade | InternalTransfer | Deposit | Withdrawal | Fee | Income | Loss | Other | Unpaired

/**
 * The tag of an event: `"Trade"`, `"InternalTransfer"`, ...
 *
 * @since 0.2.0
 * @category models
 */
export type EventKind = LedgerEvent["_tag"]

/**
 * Every event kind, in the order summaries list them.
 *
 * @since 0.2.0
 * @category constants
 */
export const eventKinds: ReadonlyArray<EventKind> = [
  "Trade",
  "InternalTransfer",
  "Deposit",
  "Withdrawal",
  "Fee",
  "Income",
  "Loss",
  "Other",
  "Unpaired"
]

/**
 * Per account and coin: the bills' balance changes against the events'.
 *
 * @since 0.2.0
 * @category models
 */
export interface Conservation {
  readonly account: EventAccount
  readonly coin: string
  readonly bills: number
  /** The sum of the bills' balance changes (after minus before, under the account's fee rule). */
  readonly billsChange: BigDecimal.BigDecimal
  /** The sum of the events' changes on this account and coin. */
  readonly eventsChange: BigDecimal.BigDecimal
  readonly conserved: boolean
}

/**
 * The events of a ledger, with what they rest on.
 *
 * @since 0.2.0
 * @category models
 */
export interface LedgerEvents {
  /** In time order (oldest first), whatever order the entries came in. */
  readonly events: ReadonlyArray<LedgerEvent>
  /** The fee rule each account's balances were read under. */
  readonly feeRules: Readonly<Partial<Record<EventAccount, ReadRule>>>
  readonly conservation: ReadonlyArray<Conservation>
  /** True when every account and coin is conserved. */
  readonly conserved: boolean
}
