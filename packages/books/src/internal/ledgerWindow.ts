/**
 * The window a ledger query resolves to, and the accounts' bills in it merged in time order:
 * shared by `Ledger.stream` and `Ledger.audit`.
 */
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import {
  BillKind,
  type BillsApiShape,
  type BillsError,
  type FundingPage,
  decodeParams,
  operationOf,
  startNotAfterEnd,
  TimeBound
} from "@account-bills/core"
import {
  contractEntry,
  fundingEntry,
  type LedgerAccount,
  type LedgerEntry,
  type LedgerQuery,
  spotEntry
} from "../LedgerEntry.js"
import { mergeByTime } from "./ledgerMerge.js"

const millisOf = (entry: LedgerEntry): number => DateTime.toEpochMillis(entry.bill.cTime)

const LedgerQuerySchema = Schema.Struct({
  from: Schema.optional(TimeBound),
  to: Schema.optional(TimeBound),
  coinId: Schema.optional(Schema.Int.pipe(Schema.positive({ message: () => "must be a positive integer" }))),
  account: Schema.optional(Schema.Union(BillKind, Schema.Literal("all"), Schema.Array(BillKind)))
}).pipe(Schema.filter((query) => startNotAfterEnd("from", "to", query.from, query.to)))

export interface Window {
  readonly accounts: ReadonlyArray<LedgerAccount>
  /** As given, epoch ms. */
  readonly from: number | undefined
  /** Pinned: every account is read up to the same instant. */
  readonly end: number
  readonly coinId: number | undefined
}

export const resolveWindow = (query: LedgerQuery): Effect.Effect<Window, BillsError> =>
  Effect.gen(function* () {
    const operation =
      typeof query.account === "string" && query.account !== "all" ? operationOf[query.account] : "fundingBills"
    const valid = yield* decodeParams(operation, LedgerQuerySchema, {
      from: query.from,
      to: query.to,
      coinId: query.coinId,
      account: query.account
    })
    const now = yield* Clock.currentTimeMillis
    const account = valid.account ?? "all"
    return {
      accounts: account === "all" ? BillKind.literals : typeof account === "string" ? [account] : account,
      from: valid.from,
      end: Math.min(valid.to ?? now, now),
      coinId: valid.coinId
    }
  })

export const merged = (
  api: BillsApiShape,
  window: Window,
  onFundingPage: (page: FundingPage) => Effect.Effect<void>
): Stream.Stream<LedgerEntry, BillsError> => {
  // A window entirely in the future is empty; `from` is clamped so the walks agree without asking.
  const query = {
    from: window.from === undefined ? undefined : Math.min(window.from, window.end),
    to: window.end,
    coinId: window.coinId
  }
  const funding: Stream.Stream<LedgerEntry, BillsError> = window.accounts.includes("funding")
    ? api.streamFundingPages(query).pipe(
        Stream.tap(onFundingPage),
        Stream.mapConcat((page) => page.bills.map(fundingEntry))
      )
    : Stream.empty
  const spot: Stream.Stream<LedgerEntry, BillsError> = window.accounts.includes("spot")
    ? Stream.map(api.streamSpotBills(query), spotEntry)
    : Stream.empty
  // The futures account names its assets: a coin id filter has no counterpart there, and a
  // ledger of one coin leaves it out rather than list every asset of it.
  const contract: Stream.Stream<LedgerEntry, BillsError> =
    window.accounts.includes("contract") && window.coinId === undefined
      ? Stream.map(api.streamContractBills({ from: query.from, to: query.to }), contractEntry)
      : Stream.empty
  return mergeByTime(
    [
      { operation: "fundingBills", stream: funding },
      { operation: "spotBills", stream: spot },
      { operation: "contractBills", stream: contract }
    ],
    millisOf
  )
}
