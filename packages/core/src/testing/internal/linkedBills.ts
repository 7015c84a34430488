/**
 * Bills of both accounts generated as the exchange books linked movements: a spot trade as two
 * legs (`trade_out` of the coin given, `trade_in` of the coin received) in one millisecond with
 * the same `fillSize` (base quantity) and `fillValue` (quote value), the fee on the `trade_in`
 * leg and `fees` "0" on the `trade_out` leg (ccxt's live `trade_out` sample); a transfer between
 * funding and spot as a `transfer_out` in one and a `transfer_in` of the same coin and amount in
 * the other, 0 to `maxTransferLagMillis` later. Balances chain exactly per account and coin
 * (`after = before + delta`, `deltaAmount` net of `fees`) and never go negative.
 *
 * The hard cases of the books (issue 53) are options, each off by default so that a seed gives
 * the bills it always gave: the fee on the sent leg or on both (`tradeFees`), groups of one fill
 * no pairing can tell apart (`ambiguousEvery`), and ids that run against the chain inside a
 * millisecond (`idsAgainstChain`). Coins whose names collide are a matter of the coins given.
 */
import * as BigDecimal from "effect/BigDecimal"
import type * as Prng from "../Prng.js"
import type { Account, FundingWireBill, SpotWireBill } from "../WireBill.js"

/** A generator's coin. */
export interface LinkedCoin {
  readonly coinId: number
  readonly coinName: string
  readonly decimals: number
}

/** What the linked batch borrows from the generator: its random sequence, balances and ids. */
export interface LinkedState {
  readonly prng: Prng.Prng
  readonly coins: ReadonlyArray<LinkedCoin>
  readonly balances: Map<string, BigDecimal.BigDecimal>
  readonly amount: (decimals: number) => BigDecimal.BigDecimal
  readonly format: (value: BigDecimal.BigDecimal, decimals: number) => string
  readonly nextId: () => string
}

/** The most a transfer's second leg trails its first. */
export const maxTransferLagMillis = 1_500

export interface LinkedBatch {
  /** Bills to generate, both accounts together (the last movement may add one more). */
  readonly count: number
  readonly startMillis: number
  readonly endMillis: number
  /** Every `tieEvery`-th movement shares the millisecond of the one before. */
  readonly tieEvery?: number | undefined
  /** Every `dropLegEvery`-th two-leg movement loses one of its legs. */
  readonly dropLegEvery?: number | undefined
  /**
   * Which leg of a trade carries its fee: `"received"` (the default, ccxt's live sample), `"sent"`
   * (in the coin given, `fees` on the `trade_out` leg and "0" on the `trade_in`), `"both"` (each
   * leg its own fee, in its own coin) or `"mixed"` (one of the three, drawn per trade).
   */
  readonly tradeFees?: TradeFees | undefined
  /**
   * Every `ambiguousEvery`-th trade is booked twice over in its millisecond: two `trade_out`
   * legs and two `trade_in` legs of one fill, the two in legs with different fees, so no pairing
   * of them is the only one (the books leave all four unpaired, "ambiguous").
   */
  readonly ambiguousEvery?: number | undefined
  /**
   * Inside each millisecond, each account's bills get their ids against their chain order
   * (the bill booked last, the lowest id), and each account's history opens with two bills of one
   * coin in one millisecond (a deposit, then half of it withdrawn), so a chain's first
   * millisecond lists in id order otherwise than it chains. Default false (ids in chain order).
   */
  readonly idsAgainstChain?: boolean | undefined
}

/** Which leg of a generated trade carries its fee (see `LinkedBatch.tradeFees`). */
export type TradeFees = "received" | "sent" | "both" | "mixed"

export interface LinkedBills {
  readonly funding: Array<FundingWireBill>
  readonly spot: Array<SpotWireBill>
  /** The bill ids of every trade's legs (out, in) as generated, both legs kept. */
  readonly trades: ReadonlyArray<readonly [string, string]>
  /** The bill ids of every transfer's legs (out, in) as generated, both legs kept. */
  readonly transfers: ReadonlyArray<readonly [string, string]>
  /** The bill ids of every ambiguous group (`ambiguousEvery`): two outs, then two ins. */
  readonly ambiguous: ReadonlyArray<ReadonlyArray<string>>
}

interface Proto {
  readonly account: Account
  readonly coin: LinkedCoin
  readonly bizType: string
  readonly delta: BigDecimal.BigDecimal
  readonly fees: string
  readonly fill: readonly [string, string] | undefined
  readonly cTime: number
  readonly seq: number
  billId?: string
}

const zero = BigDecimal.make(0n, 0)
const two = BigDecimal.make(2n, 0)
const thousand = BigDecimal.make(1000n, 0)

/** A trade's fee: a thousandth of the amount, at the coin's decimals. */
const perMille = (amount: BigDecimal.BigDecimal, decimals: number) =>
  BigDecimal.scale(BigDecimal.unsafeDivide(amount, thousand), decimals)
const accounts: ReadonlyArray<Account> = ["funding", "spot"]

export const linkedBatch = (state: LinkedState, batch: LinkedBatch): LinkedBills => {
  const { coins, prng } = state
  const protos: Array<Proto> = []
  const trades: Array<readonly [Proto, Proto]> = []
  const transfers: Array<readonly [Proto, Proto]> = []
  const ambiguous: Array<ReadonlyArray<Proto>> = []
  let tradeCount = 0
  // What can be spent at the current instant: the chain's balances plus what has arrived.
  const available = new Map<string, BigDecimal.BigDecimal>(state.balances)
  const pending: Array<Proto> = []
  const availableOf = (account: Account, coin: LinkedCoin) => available.get(`${account}:${coin.coinId}`) ?? zero
  const apply = (proto: Proto) => {
    const key = `${proto.account}:${proto.coin.coinId}`
    available.set(key, BigDecimal.sum(available.get(key) ?? zero, proto.delta))
  }
  const span = Math.max(batch.endMillis - batch.startMillis + 1, 1)
  const width = span / Math.max(Math.ceil(batch.count / 1.5), 1)
  let seq = 0
  let time = batch.startMillis
  let twoLegs = 0
  const push = (proto: Omit<Proto, "seq">): Proto => {
    const full: Proto = { ...proto, seq: seq++ }
    protos.push(full)
    return full
  }
  /** Keeps both legs, or drops one when this two-leg movement is due to lose one. */
  const keep = (out: Omit<Proto, "seq">, into: Omit<Proto, "seq">): readonly [Proto, Proto] | undefined => {
    twoLegs++
    const every = batch.dropLegEvery
    if (every !== undefined && every > 0 && twoLegs % every === 0) {
      const kept = prng.next() < 0.5 ? out : into
      const proto = push(kept)
      if (kept === out) apply(proto)
      else pending.push(proto)
      return undefined
    }
    const pair = [push(out), push(into)] as const
    apply(pair[0])
    pending.push(pair[1])
    return pair
  }
  /** A coin with something to spend in `account`, if any. */
  const funded = (account: Account): LinkedCoin | undefined => {
    const held = coins.filter((coin) => BigDecimal.isPositive(availableOf(account, coin)))
    return held.length === 0 ? undefined : prng.pick(held)
  }
  const spend = (account: Account, coin: LinkedCoin): BigDecimal.BigDecimal => {
    const drawn = state.amount(coin.decimals)
    const held = availableOf(account, coin)
    return BigDecimal.greaterThan(drawn, held) ? held : drawn
  }
  const single = (account: Account, coin: LinkedCoin, bizType: string, delta: BigDecimal.BigDecimal) =>
    apply(push({ account, coin, bizType, delta, fees: "0", fill: undefined, cTime: time }))

  if (batch.idsAgainstChain === true && coins.length > 0) {
    // Each account opens with a deposit and half of it withdrawn in one millisecond: with the ids
    // against the chain, the withdrawal has the lower id, and in id order the chain would open at
    // the deposit's balance.
    const coin = coins[0] as LinkedCoin
    for (const account of accounts) {
      const deposit = state.amount(coin.decimals)
      single(account, coin, "deposit", deposit)
      const half = BigDecimal.scale(BigDecimal.unsafeDivide(deposit, BigDecimal.make(2n, 0)), coin.decimals)
      single(account, coin, "withdraw", BigDecimal.negate(half))
    }
  }

  for (let i = 0; protos.length < batch.count; i++) {
    const tie = batch.tieEvery !== undefined && batch.tieEvery > 0 && i > 0 && i % batch.tieEvery === 0
    if (!tie) time = Math.min(batch.startMillis + Math.floor((i + prng.next()) * width), batch.endMillis)
    for (let p = pending.length - 1; p >= 0; p--) {
      const proto = pending[p] as Proto
      if (proto.cTime <= time) {
        apply(proto)
        pending.splice(p, 1)
      }
    }
    const account = prng.pick(accounts)
    const roll = prng.next()
    const source = funded(account)
    if (roll < 0.4 && account === "spot" && source !== undefined && coins.length > 1) {
      const target = prng.pick(coins.filter((coin) => coin.coinId !== source.coinId))
      tradeCount++
      const every = batch.ambiguousEvery
      const twice = every !== undefined && every > 0 && tradeCount % every === 0
      // Booked twice over, each out leg gives half of what one would have.
      const drawn = spend("spot", source)
      const given = twice ? BigDecimal.scale(BigDecimal.unsafeDivide(drawn, two), source.decimals) : drawn
      const got = state.amount(target.decimals)
      const where = feeLeg(batch.tradeFees, prng)
      const inFee = where === "sent" ? zero : perMille(got, target.decimals)
      const outFee = where === "received" ? zero : perMille(given, source.decimals)
      // What the out leg hands over: the amount given less the fee charged on it.
      const sent = BigDecimal.subtract(given, outFee)
      // The base is whichever coin sorts after the other; fillSize is its quantity.
      const baseIsSource = source.coinId > target.coinId
      const fill = (
        baseIsSource
          ? [state.format(sent, sent.scale), state.format(got, got.scale)]
          : [state.format(got, got.scale), state.format(sent, sent.scale)]
      ) as readonly [string, string]
      const out = {
        account,
        coin: source,
        bizType: "trade_out",
        delta: BigDecimal.negate(given),
        fees: where === "received" ? "0" : state.format(outFee, source.decimals),
        fill,
        cTime: time
      }
      const into = (fee: BigDecimal.BigDecimal, delta = BigDecimal.subtract(got, fee)) => ({
        account,
        coin: target,
        bizType: "trade_in",
        delta,
        // The default writes even a zero fee at the coin's decimals, as it always did.
        fees: where === "sent" && BigDecimal.isZero(fee) ? "0" : state.format(fee, target.decimals),
        fill,
        cTime: time
      })
      if (twice && BigDecimal.isPositive(given)) {
        // The second in leg brings the same change as the first with another fee (twice the
        // first's, or the coin's smallest unit where the first is none): the two differ only
        // in what they report, which is what makes the group ambiguous.
        const otherFee = BigDecimal.isZero(inFee)
          ? BigDecimal.make(1n, target.decimals)
          : BigDecimal.multiply(inFee, two)
        const first = into(inFee)
        const group = [push(out), push(out), push(first), push(into(otherFee, first.delta))]
        for (const leg of group.slice(0, 2)) apply(leg)
        pending.push(...group.slice(2))
        ambiguous.push(group)
      } else {
        const pair = keep(out, into(inFee))
        if (pair !== undefined) trades.push(pair)
      }
    } else if (roll < 0.65 && source !== undefined) {
      const amount = spend(account, source)
      const lag = prng.between(0, maxTransferLagMillis)
      const pair = keep(
        {
          account,
          coin: source,
          bizType: "transfer_out",
          delta: BigDecimal.negate(amount),
          fees: "0",
          fill: undefined,
          cTime: time
        },
        {
          account: account === "funding" ? "spot" : "funding",
          coin: source,
          bizType: "transfer_in",
          delta: amount,
          fees: "0",
          fill: undefined,
          cTime: Math.min(time + lag, batch.endMillis)
        }
      )
      if (pair !== undefined) transfers.push(pair)
    } else if (roll < 0.72 && source !== undefined) {
      single(account, source, "withdraw", BigDecimal.negate(spend(account, source)))
    } else if (roll < 0.76) {
      const coin = prng.pick(coins)
      single(account, coin, account === "spot" ? "order_fill_fee_income" : "airdrop_reward", state.amount(2))
    } else if (roll < 0.79) {
      const coin = prng.pick(coins)
      single(account, coin, "system_issued", state.amount(coin.decimals))
    } else {
      const coin = prng.pick(coins)
      single(account, coin, "deposit", state.amount(coin.decimals))
    }
  }

  // Time order (generation order within a millisecond), then ids and balances in that order.
  protos.sort((a, b) => a.cTime - b.cTime || a.seq - b.seq)
  const ids = protos.map(() => state.nextId())
  if (batch.idsAgainstChain === true) reverseWithinMilliseconds(protos, ids)
  const funding: Array<FundingWireBill> = []
  const spot: Array<SpotWireBill> = []
  protos.forEach((proto, i) => {
    const key = `${proto.account}:${proto.coin.coinId}`
    const after = BigDecimal.sum(state.balances.get(key) ?? zero, proto.delta)
    state.balances.set(key, after)
    const billId = ids[i] as string
    proto.billId = billId
    const common = {
      billId,
      coinId: proto.coin.coinId,
      coinName: proto.coin.coinName,
      bizType: proto.bizType,
      deltaAmount: state.format(proto.delta, proto.delta.scale),
      afterAmount: state.format(after, Math.max(after.scale, proto.coin.decimals)),
      fees: proto.fees,
      cTime: String(proto.cTime)
    }
    if (proto.account === "funding") funding.push({ ...common, fillSize: null, fillValue: null })
    else spot.push({ ...common, fillSize: proto.fill?.[0] ?? "0", fillValue: proto.fill?.[1] ?? "0" })
  })
  const idsOf = (pairs: ReadonlyArray<readonly [Proto, Proto]>) =>
    pairs.map(([out, into]) => [out.billId as string, into.billId as string] as const)
  return {
    funding,
    spot,
    trades: idsOf(trades),
    transfers: idsOf(transfers),
    ambiguous: ambiguous.map((group) => group.map((proto) => proto.billId as string))
  }
}

/** The leg a trade's fee goes on; a draw of `prng` only for `"mixed"`. */
const feeLeg = (fees: TradeFees | undefined, prng: Prng.Prng): "received" | "sent" | "both" =>
  fees === "mixed" ? prng.pick(["received", "sent", "both"] as const) : (fees ?? "received")

/**
 * Gives each account's bills of one millisecond the ids `ids` holds for them, in reverse: within
 * the millisecond the chain then runs from the highest id down. `protos` is in chain order.
 */
const reverseWithinMilliseconds = (protos: ReadonlyArray<Proto>, ids: Array<string>): void => {
  const groups = new Map<string, Array<number>>()
  protos.forEach((proto, i) => {
    const key = `${proto.account}:${proto.cTime}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [i])
    else group.push(i)
  })
  for (const group of groups.values()) {
    const reversed = group.map((i) => ids[i] as string).reverse()
    group.forEach((i, k) => {
      ids[i] = reversed[k] as string
    })
  }
}
