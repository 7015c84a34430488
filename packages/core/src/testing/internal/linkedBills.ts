/**
 * Bills of both accounts generated as the exchange books linked movements: a spot trade as two
 * legs (`trade_out` of the coin given, `trade_in` of the coin received) in one millisecond with
 * the same `fillSize` (base quantity) and `fillValue` (quote value), the fee on the `trade_in`
 * leg and `fees` "0" on the `trade_out` leg (ccxt's live `trade_out` sample); a transfer between
 * funding and spot as a `transfer_out` in one and a `transfer_in` of the same coin and amount in
 * the other, 0 to `maxTransferLagMillis` later. Balances chain exactly per account and coin
 * (`after = before + delta`, `deltaAmount` net of `fees`) and never go negative.
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
}

export interface LinkedBills {
  readonly funding: Array<FundingWireBill>
  readonly spot: Array<SpotWireBill>
  /** The bill ids of every trade's legs (out, in) as generated, both legs kept. */
  readonly trades: ReadonlyArray<readonly [string, string]>
  /** The bill ids of every transfer's legs (out, in) as generated, both legs kept. */
  readonly transfers: ReadonlyArray<readonly [string, string]>
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
const accounts: ReadonlyArray<Account> = ["funding", "spot"]

export const linkedBatch = (state: LinkedState, batch: LinkedBatch): LinkedBills => {
  const { coins, prng } = state
  const protos: Array<Proto> = []
  const trades: Array<readonly [Proto, Proto]> = []
  const transfers: Array<readonly [Proto, Proto]> = []
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
      const given = spend("spot", source)
      const got = state.amount(target.decimals)
      const fee = BigDecimal.scale(BigDecimal.unsafeDivide(got, BigDecimal.make(1000n, 0)), target.decimals)
      // The base is whichever coin sorts after the other; fillSize is its quantity.
      const baseIsSource = source.coinId > target.coinId
      const fill = (
        baseIsSource
          ? [state.format(given, given.scale), state.format(got, got.scale)]
          : [state.format(got, got.scale), state.format(given, given.scale)]
      ) as readonly [string, string]
      const pair = keep(
        { account, coin: source, bizType: "trade_out", delta: BigDecimal.negate(given), fees: "0", fill, cTime: time },
        {
          account,
          coin: target,
          bizType: "trade_in",
          delta: BigDecimal.subtract(got, fee),
          fees: state.format(fee, target.decimals),
          fill,
          cTime: time
        }
      )
      if (pair !== undefined) trades.push(pair)
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
  const funding: Array<FundingWireBill> = []
  const spot: Array<SpotWireBill> = []
  for (const proto of protos) {
    const key = `${proto.account}:${proto.coin.coinId}`
    const after = BigDecimal.sum(state.balances.get(key) ?? zero, proto.delta)
    state.balances.set(key, after)
    const billId = state.nextId()
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
  }
  const ids = (pairs: ReadonlyArray<readonly [Proto, Proto]>) =>
    pairs.map(([out, into]) => [out.billId as string, into.billId as string] as const)
  return { funding, spot, trades: ids(trades), transfers: ids(transfers) }
}
