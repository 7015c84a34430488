/**
 * The classification behind `LedgerEvents`: every entry goes to exactly one event. The rules
 * (and where each comes from) are in `docs/internals/events.md`.
 */
import * as BigDecimal from "effect/BigDecimal"
import type {
  BalanceChange,
  CoinAmount,
  Conservation,
  EventAccount,
  Fee,
  Income,
  LedgerEvent,
  LedgerEvents,
  Loss,
  ReadRule,
  UnpairedReason
} from "../LedgerEvent.js"
import type { LedgerEntry } from "../LedgerEntry.js"
import { balanceBefore } from "./ledgerChain.js"

const zero = BigDecimal.make(0n, 0)

/** Equal amounts get equal keys whatever their scale ("1.50" and "1.5"). */
const amountKey = (value: BigDecimal.BigDecimal): string => {
  const normalized = BigDecimal.normalize(value)
  return `${normalized.value}e${-normalized.scale}`
}

/** A bill as the classification sees it. */
interface Leg {
  readonly entry: LedgerEntry
  readonly index: number
  readonly millis: number
  readonly coin: string
  /** after - before under the account's rule: the bill's balance change, fees included. */
  readonly change: BigDecimal.BigDecimal
  /** The fee's size, zero when none. */
  readonly fee: BigDecimal.BigDecimal
}

/** Business types whose bills pair as spot trade legs (they carry fillSize and fillValue). */
const spotTradeTypes: ReadonlySet<string> = new Set(["trade_in", "trade_out"])
/** Business types of the funding account's trades: single bills with no fill data. */
const fundingTradeTypes: ReadonlySet<string> = new Set(["buy", "sell", "c2c_buy", "c2c_sell"])
/** Undocumented business types the exchange is seen to send that plainly pay the user. */
const incomeTypes: ReadonlySet<string> = new Set(["airdrop_reward", "rake_back_reward"])

/**
 * The kind of a futures profit, loss or funding bill (`EntryKind` "income", either sign): typed as
 * a string so that this reads the same before and after the futures account joins `EntryKind`.
 */
const isIncome = (kind: string): boolean => kind === "income"

const coinAmount = (coin: string, amount: BigDecimal.BigDecimal): CoinAmount => ({
  coin,
  amount: BigDecimal.normalize(amount)
})

const optionalFee = (leg: Leg): CoinAmount | undefined =>
  BigDecimal.isZero(leg.fee) ? undefined : coinAmount(leg.coin, leg.fee)

/** One change per account and coin, zero changes kept (the event still touches the coin). */
const changesOf = (
  parts: ReadonlyArray<readonly [EventAccount, string, BigDecimal.BigDecimal]>
): ReadonlyArray<BalanceChange> => {
  const sums = new Map<string, BalanceChange>()
  for (const [account, coin, amount] of parts) {
    const key = `${account}\u0000${coin}`
    const before = sums.get(key)
    sums.set(key, { account, coin, amount: before === undefined ? amount : BigDecimal.sum(before.amount, amount) })
  }
  return [...sums.values()].map((change) => ({ ...change, amount: BigDecimal.normalize(change.amount) }))
}

/** What every event of one bill holds: its time, its bill, the change it makes, its account. */
const oneBill = (leg: Leg) => ({
  time: leg.entry.bill.cTime,
  entries: [leg.entry],
  changes: changesOf([[leg.entry.account, leg.coin, leg.change]]),
  account: leg.entry.account
})

/** The bill's balance change, signed, fees included. */
const signedChange = (leg: Leg): BalanceChange => ({
  account: leg.entry.account,
  coin: leg.coin,
  amount: BigDecimal.normalize(leg.change)
})

/**
 * Income, a loss or a fee: one bill whose signed change says which way the coin went; the amount
 * is its size (the tag holds the direction).
 */
const flow = (tag: "Income" | "Loss" | "Fee", leg: Leg): Income | Loss | Fee => ({
  _tag: tag,
  ...oneBill(leg),
  amount: coinAmount(leg.coin, BigDecimal.abs(leg.change)),
  bizType: leg.entry.bizType
})

const fillOf = (entry: LedgerEntry): string | undefined => {
  if (entry.account !== "spot") return undefined
  const { fillSize, fillValue } = entry.bill
  if (fillSize._tag === "None" || fillValue._tag === "None") return undefined
  if (BigDecimal.isZero(fillSize.value) || BigDecimal.isZero(fillValue.value)) return undefined
  return `${amountKey(fillSize.value)}|${amountKey(fillValue.value)}`
}

/** Two legs would report the same thing: same coin, same change, same fee. */
const sameReport = (a: Leg, b: Leg): boolean =>
  a.coin === b.coin && BigDecimal.equals(a.change, b.change) && BigDecimal.equals(a.fee, b.fee)

const compareIds = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)

export const classify = (
  sorted: ReadonlyArray<LedgerEntry>,
  rules: Partial<Record<EventAccount, ReadRule>>,
  transferWindowMillis: number
): LedgerEvents => {
  const legs: Array<Leg> = sorted.map((entry, index) => {
    const rule = rules[entry.account] ?? "delta-includes-fees"
    const bill = entry.bill
    return {
      entry,
      index,
      millis: bill.cTime.epochMillis,
      coin: bill.coinName,
      change: BigDecimal.subtract(bill.afterAmount, balanceBefore(rule, bill)),
      fee: BigDecimal.abs(bill.fees)
    }
  })
  const events: Array<{ readonly first: number; readonly event: LedgerEvent }> = []
  const emit = (members: ReadonlyArray<Leg>, event: LedgerEvent) =>
    events.push({ first: Math.min(...members.map((leg) => leg.index)), event })
  const unpaired = (leg: Leg, reason: UnpairedReason) =>
    emit([leg], {
      _tag: "Unpaired",
      ...oneBill(leg),
      bizType: leg.entry.bizType,
      reason,
      change: signedChange(leg),
      fee: optionalFee(leg)
    })

  const tradeLegs: Array<Leg> = []
  const transferLegs: Array<Leg> = []
  for (const leg of legs) {
    const { account, bizType, kind } = leg.entry
    if (account === "spot" && spotTradeTypes.has(bizType)) tradeLegs.push(leg)
    else if (fundingTradeTypes.has(bizType) || kind === "trade") unpaired(leg, "no-fill-data")
    else if (kind === "transfer") transferLegs.push(leg)
    else if (kind === "deposit") {
      // Gross of a fee on the bill: the fee is its own part of the change.
      const amount = BigDecimal.sum(leg.change, leg.fee)
      emit([leg], { _tag: "Deposit", ...oneBill(leg), amount: coinAmount(leg.coin, amount), fee: optionalFee(leg) })
    } else if (kind === "withdrawal") {
      // Net of the fee: what reached the other side.
      const amount = BigDecimal.negate(BigDecimal.sum(leg.change, leg.fee))
      emit([leg], { _tag: "Withdrawal", ...oneBill(leg), amount: coinAmount(leg.coin, amount), fee: optionalFee(leg) })
    } else if ((kind === "fee" || isIncome(kind) || incomeTypes.has(bizType)) && !BigDecimal.isNegative(leg.change)) {
      emit([leg], flow("Income", leg))
    } else if (isIncome(kind) && !/funding/i.test(bizType)) {
      // A futures position closed at a loss: a loss, not a cost.
      emit([leg], flow("Loss", leg))
    } else if (kind === "fee" || isIncome(kind)) {
      emit([leg], flow("Fee", leg))
    } else {
      emit([leg], { _tag: "Other", ...oneBill(leg), bizType, change: signedChange(leg) })
    }
  }

  pairTrades(tradeLegs, emit, unpaired)
  matchTransfers(transferLegs, transferWindowMillis, emit, unpaired)

  events.sort((a, b) => a.first - b.first)
  const ordered = events.map(({ event }) => event)
  const conservation = conserve(legs, ordered)
  return {
    events: ordered,
    feeRules: rules,
    conservation,
    conserved: conservation.every((coin) => coin.conserved)
  }
}

type Emit = (members: ReadonlyArray<Leg>, event: LedgerEvent) => void
type Unpair = (leg: Leg, reason: UnpairedReason) => void

/**
 * Trade legs pair within one account and millisecond, one out (change below zero) with one in,
 * when their fill (fillSize, fillValue) is the same and their coins differ. Legs of one fill
 * that several pairings could join are paired only when every pairing reports the same trades.
 */
const pairTrades = (legs: ReadonlyArray<Leg>, emit: Emit, unpaired: Unpair): void => {
  const groups = new Map<string, { outs: Array<Leg>; ins: Array<Leg> }>()
  for (const leg of legs) {
    const fill = fillOf(leg.entry)
    if (fill === undefined) {
      unpaired(leg, "no-counterpart")
      continue
    }
    const key = `${leg.entry.account}\u0000${leg.millis}\u0000${fill}`
    let group = groups.get(key)
    if (group === undefined) {
      group = { outs: [], ins: [] }
      groups.set(key, group)
    }
    if (BigDecimal.isNegative(leg.change) || leg.entry.bizType === "trade_out") group.outs.push(leg)
    else group.ins.push(leg)
  }
  for (const { ins, outs } of groups.values()) {
    if (outs.length === 0 || ins.length === 0) {
      for (const leg of [...outs, ...ins]) unpaired(leg, "no-counterpart")
      continue
    }
    const [out0, in0] = [outs[0] as Leg, ins[0] as Leg]
    const interchangeable =
      outs.length === ins.length &&
      out0.coin !== in0.coin &&
      outs.every((leg) => sameReport(leg, out0)) &&
      ins.every((leg) => sameReport(leg, in0))
    if (!interchangeable) {
      for (const leg of [...outs, ...ins]) unpaired(leg, "ambiguous")
      continue
    }
    const byId = (a: Leg, b: Leg) => compareIds(a.entry.bill.billId, b.entry.bill.billId)
    const outSorted = [...outs].sort(byId)
    const inSorted = [...ins].sort(byId)
    outSorted.forEach((out, i) => {
      emitTrade(out, inSorted[i] as Leg, emit)
    })
  }
}

const emitTrade = (out: Leg, into: Leg, emit: Emit): void => {
  const account = out.entry.account
  // The out leg's change is -(sent + its fee); the in leg's is received - its fee.
  const sent = BigDecimal.negate(BigDecimal.sum(out.change, out.fee))
  const received = BigDecimal.sum(into.change, into.fee)
  const fees = [optionalFee(out), optionalFee(into)].filter((fee): fee is CoinAmount => fee !== undefined)
  const [first, second] = out.index < into.index ? [out, into] : [into, out]
  emit([out, into], {
    _tag: "Trade",
    time: out.entry.bill.cTime,
    entries: [first.entry, second.entry],
    changes: changesOf([
      [account, out.coin, BigDecimal.negate(sent)],
      [account, into.coin, received],
      ...fees.map((fee) => [account, fee.coin, BigDecimal.negate(fee.amount)] as const)
    ]),
    account,
    sent: coinAmount(out.coin, sent),
    received: coinAmount(into.coin, received),
    fees
  })
}

/**
 * Transfer legs match one to one: an out leg of one account with an in leg of another, the
 * same coin and the exact same amount, at most `windowMillis` apart; the nearest pairs first.
 */
const matchTransfers = (legs: ReadonlyArray<Leg>, windowMillis: number, emit: Emit, unpaired: Unpair): void => {
  const ins = new Map<string, Array<Leg>>()
  const keyOf = (coin: string, amount: BigDecimal.BigDecimal) => `${coin}\u0000${amountKey(amount)}`
  for (const leg of legs) {
    if (!BigDecimal.isPositive(leg.change)) continue
    const key = keyOf(leg.coin, leg.change)
    const list = ins.get(key)
    if (list === undefined) ins.set(key, [leg])
    else list.push(leg)
  }
  const candidates: Array<{ readonly out: Leg; readonly into: Leg; readonly distance: number }> = []
  for (const out of legs) {
    if (!BigDecimal.isNegative(out.change)) continue
    for (const into of ins.get(keyOf(out.coin, BigDecimal.negate(out.change))) ?? []) {
      const distance = Math.abs(into.millis - out.millis)
      if (into.entry.account !== out.entry.account && distance <= windowMillis) {
        candidates.push({ out, into, distance })
      }
    }
  }
  // The candidates come in the ledger's order (by out leg, then in leg) and the sort is stable, so
  // at equal distance the legs earlier in the ledger are taken first.
  candidates.sort((a, b) => a.distance - b.distance)
  const used = new Set<Leg>()
  for (const { into, out } of candidates) {
    if (used.has(out) || used.has(into)) continue
    used.add(out)
    used.add(into)
    const amount = BigDecimal.negate(out.change)
    const [first, second] = out.index < into.index ? [out, into] : [into, out]
    emit([out, into], {
      _tag: "InternalTransfer",
      time: first.entry.bill.cTime,
      entries: [first.entry, second.entry],
      changes: changesOf([
        [out.entry.account, out.coin, BigDecimal.negate(amount)],
        [into.entry.account, into.coin, amount]
      ]),
      from: out.entry.account,
      to: into.entry.account,
      amount: coinAmount(out.coin, amount)
    })
  }
  for (const leg of legs) if (!used.has(leg)) unpaired(leg, "no-matching-transfer")
}

/** Per account and coin, the bills' changes against the events'. */
const conserve = (legs: ReadonlyArray<Leg>, events: ReadonlyArray<LedgerEvent>): ReadonlyArray<Conservation> => {
  const rows = new Map<
    string,
    {
      account: EventAccount
      coin: string
      bills: number
      billsChange: BigDecimal.BigDecimal
      eventsChange: BigDecimal.BigDecimal
    }
  >()
  const row = (account: EventAccount, coin: string) => {
    const key = `${account}\u0000${coin}`
    let found = rows.get(key)
    if (found === undefined) {
      found = { account, coin, bills: 0, billsChange: zero, eventsChange: zero }
      rows.set(key, found)
    }
    return found
  }
  for (const leg of legs) {
    const found = row(leg.entry.account, leg.coin)
    found.bills++
    found.billsChange = BigDecimal.sum(found.billsChange, leg.change)
  }
  for (const event of events) {
    for (const change of event.changes) {
      const found = row(change.account, change.coin)
      found.eventsChange = BigDecimal.sum(found.eventsChange, change.amount)
    }
  }
  return [...rows.values()]
    .sort((a, b) => (a.coin < b.coin ? -1 : a.coin > b.coin ? 1 : a.account < b.account ? -1 : 1))
    .map((found) => ({
      ...found,
      billsChange: BigDecimal.normalize(found.billsChange),
      eventsChange: BigDecimal.normalize(found.eventsChange),
      conserved: BigDecimal.equals(found.billsChange, found.eventsChange)
    }))
}
