/**
 * From events to the transactions of a journal, whatever the tool: the postings of each event,
 * the order of events in one millisecond, and where each balance the exchange reported can be
 * asserted.
 *
 * Assertions. Per account and coin the bills form a balance chain (each starts from the
 * balance the one before ended with; in one millisecond the order is the chain's trail, as the
 * audit lays it out). After the postings of a transaction, an account and coin whose bills in
 * the journal so far are exactly the first n of its chain is at the balance the exchange
 * reported after the n-th: that `afterAmount` is asserted on the transaction's last posting to
 * it. Where an event's bills lie apart in time (a transfer's two legs) and other bills of the
 * same account and coin fall between them, the assertions in between are left out until the
 * journal has caught up with the chain; they are never replaced by a figure of our own.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import type { EventAccount, LedgerEvent, LedgerEvents, ReadRule } from "../LedgerEvent.js"
import type { LedgerEntry } from "../LedgerEntry.js"
import { balanceBefore, type Link, linkOf, orderGroup } from "./ledgerChain.js"
import type { NamedAccount } from "./journalNames.js"

const zero = BigDecimal.make(0n, 0)

/**
 * Where a posting goes: an exchange account's coin, or one of the named accounts.
 */
export type Target =
  | { readonly _tag: "Asset"; readonly account: EventAccount; readonly coin: string }
  | { readonly _tag: "Named"; readonly name: NamedAccount }

/**
 * One posting: `amount` of `coin`, at a total cost, with the balance asserted after it.
 */
export interface Posting {
  readonly target: Target
  readonly coin: string
  readonly amount: BigDecimal.BigDecimal
  /** The total price (`@@`) of a trade's received leg: what was given for it. */
  readonly cost: { readonly coin: string; readonly amount: BigDecimal.BigDecimal } | undefined
  /** The balance the exchange reported, asserted after this posting. */
  assert: BigDecimal.BigDecimal | undefined
}

/**
 * A balance at the end of a day (Beancount's `balance`, dated the next day).
 */
export interface DayBalance {
  readonly account: EventAccount
  readonly coin: string
  readonly amount: BigDecimal.BigDecimal
}

/**
 * One transaction of the journal.
 */
export interface Transaction {
  readonly millis: number
  /** The event's tag, or `Opening`. */
  readonly kind: string
  readonly narration: string
  readonly billIds: ReadonlyArray<string>
  readonly bizTypes: ReadonlyArray<string>
  readonly postings: ReadonlyArray<Posting>
  /** Why the event went (partly) to the suspense account. */
  readonly suspense: string | undefined
  /** Set on the last transaction of a day: the balances the exchange reported at its end. */
  endOfDay: ReadonlyArray<DayBalance>
}

/**
 * What went to the suspense account, for the list on stderr.
 */
export interface SuspenseItem {
  readonly billIds: ReadonlyArray<string>
  readonly account: EventAccount
  readonly coin: string
  readonly amount: BigDecimal.BigDecimal
  readonly reason: string
}

/**
 * A journal before it is written in a tool's syntax.
 */
export interface Plan {
  readonly transactions: ReadonlyArray<Transaction>
  /** Exchange accounts and coins, in the order first seen. */
  readonly assets: ReadonlyArray<{ readonly account: EventAccount; readonly coin: string }>
  readonly named: ReadonlySet<NamedAccount>
  readonly coins: ReadonlySet<string>
  /** The most decimal places any amount of a coin has in the journal. */
  readonly scales: ReadonlyMap<string, number>
  readonly suspense: ReadonlyArray<SuspenseItem>
  readonly assertions: number
}

const keyOf = (account: EventAccount, coin: string) => `${account}\u0000${coin}`
const entryKey = (entry: LedgerEntry) => keyOf(entry.account, entry.bill.coinName)

/** The chain of one account and coin: its bills in chain order, and the balance before them. */
interface Chain {
  readonly bills: ReadonlyArray<LedgerEntry>
  readonly opening: BigDecimal.BigDecimal
}

/** Lays out each account and coin's bills as its balance chain (see the audit's ledgerChain). */
const chainsOf = (
  events: ReadonlyArray<LedgerEvent>,
  rules: Readonly<Partial<Record<EventAccount, ReadRule>>>
): ReadonlyMap<string, Chain> => {
  const byKey = new Map<string, Array<LedgerEntry>>()
  for (const event of events) {
    for (const entry of event.entries) {
      const key = entryKey(entry)
      const list = byKey.get(key)
      if (list === undefined) byKey.set(key, [entry])
      else list.push(entry)
    }
  }
  const chains = new Map<string, Chain>()
  for (const [key, entries] of byKey) {
    // A stable sort: in one millisecond the bills keep the events' order, which orderGroup lays out.
    const sorted = [...entries].sort((a, b) => a.bill.cTime.epochMillis - b.bill.cTime.epochMillis)
    const rule = rules[(sorted[0] as LedgerEntry).account] ?? "delta-includes-fees"
    const ordered: Array<LedgerEntry> = []
    let at: string | undefined
    for (let i = 0; i < sorted.length; ) {
      const millis = (sorted[i] as LedgerEntry).bill.cTime.epochMillis
      const group: Array<Link<LedgerEntry>> = []
      for (; i < sorted.length && (sorted[i] as LedgerEntry).bill.cTime.epochMillis === millis; i++) {
        const entry = sorted[i] as LedgerEntry
        const link = linkOf(rule, "ascending", entry.bill)
        group.push({ bill: entry, from: link.from, to: link.to })
      }
      const laid = orderGroup(at, group)
      for (const link of laid) ordered.push(link.bill)
      at = laid[laid.length - 1]?.to
    }
    const first = ordered[0] as LedgerEntry
    chains.set(key, { bills: ordered, opening: balanceBefore(rule, first.bill) })
  }
  return chains
}

const sumOf = (amounts: Iterable<BigDecimal.BigDecimal>): BigDecimal.BigDecimal => {
  let total = zero
  for (const amount of amounts) total = BigDecimal.sum(total, amount)
  return total
}

const asset = (account: EventAccount, coin: string): Target => ({ _tag: "Asset", account, coin })
const named = (name: NamedAccount): Target => ({ _tag: "Named", name })
const posting = (
  target: Target,
  coin: string,
  amount: BigDecimal.BigDecimal,
  cost?: { readonly coin: string; readonly amount: BigDecimal.BigDecimal }
): Posting => ({ target, coin, amount, cost, assert: undefined })

const describe = (amount: BigDecimal.BigDecimal, coin: string) => `${BigDecimal.format(amount)} ${coin}`

/** The postings an event's own fields give, and a line that names it. */
const postingsOf = (
  event: LedgerEvent
): { readonly postings: Array<Posting>; readonly narration: string; readonly suspense: string | undefined } => {
  const fee = (account: EventAccount, coin: string, amount: BigDecimal.BigDecimal) => [
    posting(asset(account, coin), coin, BigDecimal.negate(amount)),
    posting(named("fees"), coin, amount)
  ]
  switch (event._tag) {
    case "Trade": {
      const { account, received, sent } = event
      return {
        postings: [
          posting(asset(account, received.coin), received.coin, received.amount, sent),
          posting(asset(account, sent.coin), sent.coin, BigDecimal.negate(sent.amount)),
          ...event.fees.flatMap((f) => fee(account, f.coin, f.amount))
        ],
        narration: `${account}: bought ${describe(received.amount, received.coin)} for ${describe(sent.amount, sent.coin)}`,
        suspense: undefined
      }
    }
    case "InternalTransfer":
      return {
        postings: [
          posting(asset(event.from, event.amount.coin), event.amount.coin, BigDecimal.negate(event.amount.amount)),
          posting(asset(event.to, event.amount.coin), event.amount.coin, event.amount.amount)
        ],
        narration: `${describe(event.amount.amount, event.amount.coin)} from ${event.from} to ${event.to}`,
        suspense: undefined
      }
    case "Deposit":
    case "Withdrawal": {
      const sign = event._tag === "Deposit" ? (x: BigDecimal.BigDecimal) => x : BigDecimal.negate
      const { coin, amount } = event.amount
      return {
        postings: [
          posting(asset(event.account, coin), coin, sign(amount)),
          posting(named("external"), coin, BigDecimal.negate(sign(amount))),
          ...(event.fee === undefined ? [] : fee(event.account, event.fee.coin, event.fee.amount))
        ],
        narration: `${event.account}: ${event._tag === "Deposit" ? "deposit of" : "withdrawal of"} ${describe(amount, coin)}`,
        suspense: undefined
      }
    }
    case "Fee":
    case "Income":
    case "Loss": {
      const { coin, amount } = event.amount
      const into = event._tag === "Income"
      const other: NamedAccount = event._tag === "Fee" ? "fees" : event._tag === "Income" ? "income" : "losses"
      return {
        postings: [
          posting(asset(event.account, coin), coin, into ? amount : BigDecimal.negate(amount)),
          posting(named(other), coin, into ? BigDecimal.negate(amount) : amount)
        ],
        narration: `${event.account}: ${event.bizType} ${describe(amount, coin)}`,
        suspense: undefined
      }
    }
    case "Other":
    case "Unpaired": {
      const { account, coin, amount } = event.change
      const reason =
        event._tag === "Other"
          ? `business type ${event.bizType} is not known`
          : `unpaired ${event.bizType} (${event.reason})`
      return {
        postings: [
          posting(asset(account, coin), coin, amount),
          posting(named("suspense"), coin, BigDecimal.negate(amount))
        ],
        narration: `${account}: ${reason}`,
        suspense: reason
      }
    }
  }
}

/**
 * Events of one millisecond in an order the chains agree with where one exists: each time the
 * first event whose bills are all next in their chains, else the first left.
 */
const orderMillisecond = (
  events: ReadonlyArray<LedgerEvent>,
  position: ReadonlyMap<LedgerEntry, number>,
  posted: Map<string, number>
): ReadonlyArray<LedgerEvent> => {
  if (events.length <= 1) return events
  const pending = [...events]
  const ordered: Array<LedgerEvent> = []
  const taken = new Map(posted)
  while (pending.length > 0) {
    const ready = pending.findIndex((event) =>
      [...new Set(event.entries.map(entryKey))].every((key) => {
        const mine = event.entries.filter((entry) => entryKey(entry) === key).map((e) => position.get(e) as number)
        const next = taken.get(key) ?? 0
        return mine.every((index) => index >= next && index < next + mine.length)
      })
    )
    const [event] = pending.splice(ready === -1 ? 0 : ready, 1) as [LedgerEvent]
    for (const entry of event.entries) taken.set(entryKey(entry), (taken.get(entryKey(entry)) ?? 0) + 1)
    ordered.push(event)
  }
  return ordered
}

const dayOf = (millis: number) => Math.floor(millis / 86_400_000)

/**
 * When an event is booked: at its first bill, unless its bills lie apart in time (a transfer's
 * two legs in two accounts) and a bill of a leg's account and coin falls between them; then at
 * the first time by which every bill before its legs in their chains is booked and none after
 * them is, where there is one (else at its first bill, and the assertions wait, see above).
 */
const bookingMillis = (
  event: LedgerEvent,
  chains: ReadonlyMap<string, Chain>,
  position: ReadonlyMap<LedgerEntry, number>
): number => {
  const first = event.time.epochMillis
  let earliest = first
  let latest = first
  for (const entry of event.entries) latest = Math.max(latest, entry.bill.cTime.epochMillis)
  if (latest === first) return first
  for (const entry of event.entries) {
    const bills = (chains.get(entryKey(entry)) as Chain).bills
    const at = position.get(entry) as number
    const before = bills[at - 1]?.bill.cTime.epochMillis
    const after = bills[at + 1]?.bill.cTime.epochMillis
    if (before !== undefined) earliest = Math.max(earliest, before)
    if (after !== undefined) latest = Math.min(latest, after)
  }
  return earliest <= latest ? earliest : first
}

/**
 * The plan of a journal over the events.
 */
export const plan = (ledger: LedgerEvents): Plan => {
  const byTime = [...ledger.events].sort((a, b) => a.time.epochMillis - b.time.epochMillis)
  const chains = chainsOf(byTime, ledger.feeRules)
  const position = new Map<LedgerEntry, number>()
  for (const chain of chains.values()) {
    chain.bills.forEach((entry, i) => {
      position.set(entry, i)
    })
  }
  const booked = new Map(byTime.map((event) => [event, bookingMillis(event, chains, position)] as const))
  const millisOf = (event: LedgerEvent) => booked.get(event) as number
  const events = [...byTime].sort((a, b) => millisOf(a) - millisOf(b))

  const transactions: Array<Transaction> = []
  const suspense: Array<SuspenseItem> = []
  const assets = new Map<string, { readonly account: EventAccount; readonly coin: string }>()
  const namedUsed = new Set<NamedAccount>()
  const coins = new Set<string>()
  const scales = new Map<string, number>()
  const note = (coin: string, amount: BigDecimal.BigDecimal) => {
    coins.add(coin)
    scales.set(coin, Math.max(scales.get(coin) ?? 0, BigDecimal.normalize(amount).scale))
  }
  const posted = new Map<string, number>()
  const highest = new Map<string, number>()
  const today = new Set<string>()
  let assertions = 0

  const take = (transaction: Transaction) => {
    for (const p of transaction.postings) {
      note(p.coin, p.amount)
      if (p.cost !== undefined) note(p.cost.coin, p.cost.amount)
      if (p.target._tag === "Asset") {
        const key = keyOf(p.target.account, p.target.coin)
        if (!assets.has(key)) assets.set(key, { account: p.target.account, coin: p.target.coin })
      } else namedUsed.add(p.target.name)
    }
    transactions.push(transaction)
  }

  // The balance each account and coin held before its first bill in the window.
  const openings = [...chains.entries()].filter(([, chain]) => !BigDecimal.isZero(chain.opening))
  // A chain exists only for a bill of some event, so an opening means the events are not empty.
  if (openings.length > 0) {
    const postings: Array<Posting> = []
    for (const [, chain] of openings) {
      const first = chain.bills[0] as LedgerEntry
      const coin = first.bill.coinName
      const open = posting(asset(first.account, coin), coin, chain.opening)
      open.assert = chain.opening
      assertions++
      postings.push(open, posting(named("opening"), coin, BigDecimal.negate(chain.opening)))
    }
    take({
      millis: (byTime[0] as LedgerEvent).time.epochMillis,
      kind: "Opening",
      narration: "balances before the first bill of the window",
      billIds: [],
      bizTypes: [],
      postings,
      suspense: undefined,
      endOfDay: []
    })
  }

  const closeDay = () => {
    const last = transactions[transactions.length - 1]
    if (last === undefined) return
    const balances: Array<DayBalance> = []
    for (const key of today) {
      const chain = chains.get(key) as Chain
      const top = highest.get(key) as number
      if ((posted.get(key) ?? 0) - 1 !== top) continue
      const entry = chain.bills[top] as LedgerEntry
      balances.push({ account: entry.account, coin: entry.bill.coinName, amount: entry.bill.afterAmount })
    }
    last.endOfDay = balances
    today.clear()
  }

  let day: number | undefined
  for (let i = 0; i < events.length; ) {
    const millis = millisOf(events[i] as LedgerEvent)
    const group: Array<LedgerEvent> = []
    for (; i < events.length && millisOf(events[i] as LedgerEvent) === millis; i++) {
      group.push(events[i] as LedgerEvent)
    }
    if (day !== undefined && dayOf(millis) !== day) closeDay()
    day = dayOf(millis)
    for (const event of orderMillisecond(group, position, posted)) {
      const built = postingsOf(event)
      const postings = built.postings.filter((p) => !BigDecimal.isZero(p.amount) || p.target._tag === "Asset")
      const billIds = event.entries.map((entry) => entry.bill.billId)
      let suspenseReason = built.suspense
      if (built.suspense !== undefined) {
        for (const p of postings) {
          if (p.target._tag === "Asset") {
            suspense.push({
              billIds,
              account: p.target.account,
              coin: p.coin,
              amount: p.amount,
              reason: built.suspense
            })
          }
        }
      }
      // What the event says it does to each account and coin must be what its postings do; a
      // difference (never expected) is booked against suspense rather than break an assertion.
      for (const change of event.changes) {
        const booked = sumOf(
          postings
            .filter((p) => p.target._tag === "Asset" && p.target.account === change.account && p.coin === change.coin)
            .map((p) => p.amount)
        )
        const rest = BigDecimal.subtract(change.amount, booked)
        const touched = postings.some(
          (p) => p.target._tag === "Asset" && p.target.account === change.account && p.coin === change.coin
        )
        if (!BigDecimal.isZero(rest)) {
          postings.push(posting(asset(change.account, change.coin), change.coin, rest))
          postings.push(posting(named("suspense"), change.coin, BigDecimal.negate(rest)))
          suspenseReason ??= "the event's parts do not add up to its balance change"
          suspense.push({ billIds, account: change.account, coin: change.coin, amount: rest, reason: suspenseReason })
        } else if (!touched) {
          postings.push(posting(asset(change.account, change.coin), change.coin, zero))
        }
      }
      // Assertions: see the module's comment.
      for (const key of new Set(event.entries.map(entryKey))) {
        const mine = event.entries.filter((entry) => entryKey(entry) === key)
        posted.set(key, (posted.get(key) ?? 0) + mine.length)
        highest.set(key, Math.max(highest.get(key) ?? -1, ...mine.map((entry) => position.get(entry) as number)))
        today.add(key)
        const top = highest.get(key) as number
        if ((posted.get(key) as number) - 1 !== top) continue
        const target = (chains.get(key) as Chain).bills[top] as LedgerEntry
        let last: Posting | undefined
        for (const p of postings) {
          if (p.target._tag === "Asset" && keyOf(p.target.account, p.target.coin) === key) last = p
        }
        if (last === undefined) continue
        last.assert = target.bill.afterAmount
        note(target.bill.coinName, target.bill.afterAmount)
        assertions++
      }
      take({
        millis,
        kind: event._tag,
        narration: built.narration,
        billIds,
        bizTypes: [...new Set(event.entries.map((entry) => entry.bizType))],
        postings,
        suspense: suspenseReason,
        endOfDay: []
      })
    }
  }
  closeDay()
  return { transactions, assets: [...assets.values()], named: namedUsed, coins, scales, suspense, assertions }
}

/**
 * The UTC date of epoch milliseconds, `YYYY-MM-DD`.
 */
export const dateOf = (millis: number): string => DateTime.formatIso(DateTime.unsafeMake(millis)).slice(0, 10)
