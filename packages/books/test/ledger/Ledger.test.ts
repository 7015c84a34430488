import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import { FundingBillFromWire, SpotBillFromWire } from "@account-bills/core"
import { Ledger } from "../../src/index.js"
import { orderGroup } from "../../src/internal/ledgerChain.js"
import { mergeByTime } from "../../src/internal/ledgerMerge.js"
import { BillGenerator, type FundingWireBill, type SpotWireBill } from "@account-bills/core/testing"

const toFunding = Schema.decodeUnknownSync(FundingBillFromWire)
const toSpot = Schema.decodeUnknownSync(SpotBillFromWire)

const generated = (seed: number, count: number, group?: BillGenerator.SameMillisecondGroup) => {
  const generator = BillGenerator.make({ seed })
  const batch = {
    count,
    startMillis: 1_700_000_000_000,
    endMillis: 1_700_000_000_000 + count * 50,
    sameMillisecondGroup: group
  }
  return {
    funding: generator.generate("funding", batch),
    spot: generator.generate("spot", batch)
  }
}

const entriesOf = (wire: {
  readonly funding: ReadonlyArray<FundingWireBill>
  readonly spot: ReadonlyArray<SpotWireBill>
}): Array<Ledger.LedgerEntry> => {
  const all: Array<Ledger.LedgerEntry> = [
    ...wire.funding.map((bill) => Ledger.fundingEntry(toFunding(bill))),
    ...wire.spot.map((bill) => Ledger.spotEntry(toSpot(bill)))
  ]
  // Stable sort: within a millisecond the generation order stays.
  return all.sort((a, b) => DateTime.toEpochMillis(a.bill.cTime) - DateTime.toEpochMillis(b.bill.cTime))
}

const audit = (entries: ReadonlyArray<Ledger.LedgerEntry>) => Ledger.auditEntries(Stream.fromIterable(entries))

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runSync(effect)

/** Shuffles every run of same-millisecond entries with `random` (values in [0, 1)). */
const shuffleWithinMilliseconds = (entries: ReadonlyArray<Ledger.LedgerEntry>, random: () => number) => {
  const out = [...entries]
  let start = 0
  while (start < out.length) {
    const t = DateTime.toEpochMillis((out[start] as Ledger.LedgerEntry).bill.cTime)
    let end = start
    while (end < out.length && DateTime.toEpochMillis((out[end] as Ledger.LedgerEntry).bill.cTime) === t) end++
    for (let i = end - 1; i > start; i--) {
      const j = start + Math.floor(random() * (i - start + 1))
      const swap = out[i] as Ledger.LedgerEntry
      out[i] = out[j] as Ledger.LedgerEntry
      out[j] = swap
    }
    start = end
  }
  return out
}

const seeded = (seed: number) => {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

/** A bill's coin id; contract bills name their asset instead. */
const coinOf = (bill: Ledger.LedgerEntry["bill"]): number | string => ("coinId" in bill ? bill.coinId : bill.coinName)

describe("Ledger.auditEntries", () => {
  it("the generator's history audits clean, with the rule it follows and the balances at either end", () => {
    const wire = generated(7, 600, { every: 20, size: 5 })
    const report = run(audit(entriesOf(wire)))
    expect(report.whole).toBe(true)
    for (const account of report.accounts) {
      // These entries hold no futures bills: that account is reported, empty.
      if (account.account === "contract") {
        expect(account.bills).toBe(0)
        continue
      }
      const bills = account.account === "funding" ? wire.funding : wire.spot
      expect(account.bills).toBe(bills.length)
      expect(account.rule).toBe("delta-includes-fees")
      for (const coin of account.coins) {
        const ofCoin = bills.filter((bill) => bill.coinId === coin.coinId)
        expect(coin.bills).toBe(ofCoin.length)
        expect(coin.breakCount).toBe(0)
        expect(BigDecimal.format(coin.lastBalance)).toBe(
          BigDecimal.format(BigDecimal.unsafeFromString((ofCoin[ofCoin.length - 1] as FundingWireBill).afterAmount))
        )
        // The generator starts every balance at zero.
        expect(BigDecimal.isZero(coin.openingBalance)).toBe(true)
      }
    }
  })

  it("audits clean newest-first too", () => {
    const report = run(audit(entriesOf(generated(8, 300, { every: 10, size: 3 })).reverse()))
    expect(report.whole).toBe(true)
    for (const coin of report.accounts.flatMap((account) => account.coins)) {
      expect(BigDecimal.isZero(coin.openingBalance)).toBe(true)
    }
  })

  it("a same-millisecond group in any order still audits clean, either direction", () => {
    const entries = entriesOf(generated(9, 400, { every: 8, size: 6 }))
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.boolean(), (seed, newestFirst) => {
        const shuffled = shuffleWithinMilliseconds(entries, seeded(seed))
        const report = run(audit(newestFirst ? shuffled.reverse() : shuffled))
        expect(report.whole).toBe(true)
        for (const coin of report.accounts.flatMap((account) => account.coins)) {
          expect(BigDecimal.isZero(coin.openingBalance)).toBe(true)
        }
      }),
      { numRuns: 60 }
    )
  })

  it("a whole history in one millisecond, shuffled, audits clean", () => {
    const wire = generated(10, 40)
    const at = wire.funding[0]?.cTime ?? "0"
    const same = {
      funding: wire.funding.map((bill) => ({ ...bill, cTime: at })),
      spot: wire.spot.map((bill) => ({ ...bill, cTime: at }))
    }
    const report = run(audit(shuffleWithinMilliseconds(entriesOf(same), seeded(3))))
    expect(report.whole).toBe(true)
  })

  it("deleting any one bill is found and located between its neighbours", () => {
    const wire = generated(11, 200, { every: 15, size: 4 })
    const entries = entriesOf(wire)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: entries.length - 1 }), (index) => {
        const deleted = entries[index] as Ledger.LedgerEntry
        const rest = entries.filter((_, i) => i !== index)
        const report = run(audit(rest))
        const chain = entries.filter(
          (entry) => entry.account === deleted.account && coinOf(entry.bill) === coinOf(deleted.bill)
        )
        const t = (entry: Ledger.LedgerEntry) => DateTime.toEpochMillis(entry.bill.cTime)
        const coins = report.accounts.flatMap((account) => account.coins)
        const broken = coins.filter((coin) => !coin.whole)
        const atEnd =
          t(deleted) === t(chain[0] as Ledger.LedgerEntry) ||
          t(deleted) === t(chain[chain.length - 1] as Ledger.LedgerEntry)
        if (broken.length === 0) {
          // Only the ends of a chain leave no trace in it: nothing before or after to disagree.
          expect(atEnd).toBe(true)
          return
        }
        expect(broken).toHaveLength(1)
        const coin = broken[0] as Ledger.CoinAudit
        expect([coin.account, coin.coinId]).toEqual([deleted.account, coinOf(deleted.bill)])
        expect(coin.breakCount).toBe(1)
        const [found] = coin.breaks
        const millis = DateTime.toEpochMillis(deleted.bill.cTime)
        expect(DateTime.toEpochMillis(found?.earlier.cTime ?? DateTime.unsafeMake(0))).toBeLessThanOrEqual(millis)
        expect(DateTime.toEpochMillis(found?.later.cTime ?? DateTime.unsafeMake(0))).toBeGreaterThanOrEqual(millis)
        // The gap is exactly the deleted bill's change.
        expect(BigDecimal.equals(found?.difference ?? BigDecimal.make(0n, 0), deleted.bill.deltaAmount)).toBe(true)
        expect(report.whole).toBe(false)
      }),
      { numRuns: 150 }
    )
  })

  it("a deleted bill between two single-millisecond neighbours is named exactly", () => {
    const entries = entriesOf(generated(12, 100))
    const spot = entries.filter(
      (entry) => entry.account === "spot" && coinOf(entry.bill) === (entries[0] && coinOf(entries[0].bill))
    )
    const [, , victim, after] = spot
    const before = spot[1]
    const report = run(audit(entries.filter((entry) => entry !== victim)))
    const coin = report.accounts.flatMap((account) => account.coins).find((c) => !c.whole)
    expect(coin?.breaks.map((b) => [b.earlier.billId, b.later.billId])).toEqual([
      [before?.bill.billId, after?.bill.billId]
    ])
  })

  const chainOf = (
    rule: "delta-includes-fees" | "fees-subtracted" | "fees-added",
    steps: ReadonlyArray<readonly [delta: string, fees: string]>
  ): Array<Ledger.LedgerEntry> => {
    let balance = BigDecimal.unsafeFromString("100")
    return steps.map(([delta, fees], i) => {
      const d = BigDecimal.unsafeFromString(delta)
      const f = BigDecimal.unsafeFromString(fees)
      balance =
        rule === "delta-includes-fees"
          ? BigDecimal.sum(balance, d)
          : rule === "fees-subtracted"
            ? BigDecimal.subtract(BigDecimal.sum(balance, d), f)
            : BigDecimal.sum(BigDecimal.sum(balance, d), f)
      return Ledger.spotEntry(
        toSpot({
          billId: String(1000 + i),
          coinId: 1,
          coinName: "USDT",
          bizType: "trade_in",
          fillSize: "1",
          fillValue: "1",
          deltaAmount: delta,
          afterAmount: BigDecimal.format(balance),
          fees,
          cTime: String(1_700_000_000_000 + i * 1000)
        })
      )
    })
  }

  it("finds the fee rule the data follows, each way", () => {
    const positiveFees = [
      ["5", "0.1"],
      ["-2.5", "0.05"],
      ["10", "0"],
      ["3", "0.003"]
    ] as const
    const negativeFees = [
      ["5", "-0.1"],
      ["-2.5", "-0.05"],
      ["10", "0"],
      ["3", "-0.003"]
    ] as const
    const cases = [
      ["delta-includes-fees", positiveFees],
      ["fees-subtracted", positiveFees],
      ["fees-added", negativeFees]
    ] as const
    for (const [rule, steps] of cases) {
      const report = run(audit(chainOf(rule, steps)))
      const spot = report.accounts.find((account) => account.account === "spot")
      expect(spot?.rule, rule).toBe(rule)
      expect(spot?.coins[0]?.rule, rule).toBe(rule)
      expect(report.whole, rule).toBe(true)
      expect(BigDecimal.format(spot?.coins[0]?.openingBalance ?? BigDecimal.make(0n, 0))).toBe("100")
    }
  })

  it("finds the rule despite a break, and reports the break under it", () => {
    const steps = [
      ["5", "0.1"],
      ["-2.5", "0.05"],
      ["7", "0.2"],
      ["10", "0.01"],
      ["3", "0.003"]
    ] as const
    const chain = chainOf("fees-subtracted", steps)
    const report = run(audit(chain.filter((_, i) => i !== 2)))
    const coin = report.accounts.find((account) => account.account === "spot")?.coins[0]
    expect(coin?.rule).toBe("fees-subtracted")
    expect(coin?.breakCount).toBe(1)
    // 7 - 0.2 went missing.
    expect(BigDecimal.format(coin?.breaks[0]?.difference ?? BigDecimal.make(0n, 0))).toBe("6.8")
  })

  it("without fees the rule is undetermined and the chain still checked", () => {
    const report = run(
      audit(
        chainOf("delta-includes-fees", [
          ["1", "0"],
          ["2", "0"]
        ])
      )
    )
    expect(report.accounts.find((account) => account.account === "spot")?.rule).toBe("undetermined")
    expect(report.whole).toBe(true)
  })

  it("a net-zero first millisecond is laid out to meet the next one", () => {
    // +5 and -5 in one millisecond, listed in the order that does not meet the next bill.
    const bill = (billId: string, t: number, delta: string, after: string) =>
      Ledger.fundingEntry(
        toFunding({
          billId,
          coinId: 2,
          coinName: "BTC",
          bizType: "transfer_in",
          deltaAmount: delta,
          afterAmount: after,
          fees: "0",
          cTime: String(t),
          fillSize: null,
          fillValue: null
        })
      )
    const entries = [bill("1", 10, "-5", "100"), bill("2", 10, "5", "105"), bill("3", 11, "1", "106")]
    const report = run(audit(entries))
    expect(report.whole).toBe(true)
    const coin = report.accounts[0]?.coins[0]
    expect(BigDecimal.format(coin?.firstBalance ?? BigDecimal.make(0n, 0))).toBe("100")
    expect(BigDecimal.format(coin?.openingBalance ?? BigDecimal.make(0n, 0))).toBe("105")
  })

  it("fails on entries out of time order", () => {
    const entries = entriesOf(generated(13, 30))
    const spot = entries.filter(
      (entry) => entry.account === "spot" && coinOf(entry.bill) === (entries[0] && coinOf(entries[0].bill))
    )
    const swapped = [spot[1], spot[0], ...spot.slice(2)] as Array<Ledger.LedgerEntry>
    const exit = Effect.runSyncExit(audit(swapped))
    expect(exit._tag).toBe("Failure")
  })

  it("the report survives encoding and decoding", () => {
    const entries = entriesOf(generated(14, 60))
    const report = run(audit(entries.filter((_, i) => i !== 30)))
    const encoded = Schema.encodeSync(Ledger.AuditReport)(report)
    const json = JSON.parse(JSON.stringify(encoded)) as unknown
    expect(Schema.decodeUnknownSync(Ledger.AuditReport)(json)).toEqual(report)
  })
})

describe("Ledger.kindOf", () => {
  it("normalizes the documented and the unlisted bizTypes", () => {
    expect(Ledger.kindOf("deposit")).toBe("deposit")
    expect(Ledger.kindOf("withdraw")).toBe("withdrawal")
    expect(Ledger.kindOf("transfer_out")).toBe("transfer")
    expect(Ledger.kindOf("c2c_buy")).toBe("trade")
    expect(Ledger.kindOf("trade_out")).toBe("trade")
    expect(Ledger.kindOf("order_fill_fee_income")).toBe("fee")
    expect(Ledger.kindOf("some_new_fee")).toBe("fee")
    expect(Ledger.kindOf("airdrop_reward")).toBe("other")
  })
})

describe("mergeByTime", () => {
  const side = (times: ReadonlyArray<number>, tag: string, pulls: Array<string>) =>
    Stream.fromIterable(times).pipe(
      Stream.rechunk(1),
      Stream.tap((t) => Effect.sync(() => pulls.push(`${tag}${t}`))),
      Stream.map((t) => ({ t, tag }))
    )
  const merge = (a: ReadonlyArray<number>, b: ReadonlyArray<number>, pulls: Array<string> = []) =>
    mergeByTime(
      [
        { operation: "fundingBills", stream: side(a, "f", pulls) },
        { operation: "spotBills", stream: side(b, "s", pulls) }
      ],
      (x) => x.t
    )

  it("merges in the inputs' direction, either one", () => {
    const up = run(Stream.runCollect(merge([1, 3, 3, 8], [2, 3, 9])))
    expect(Chunk.toReadonlyArray(up).map((x) => `${x.tag}${x.t}`)).toEqual(["f1", "s2", "f3", "f3", "s3", "f8", "s9"])
    const down = run(Stream.runCollect(merge([8, 3, 3, 1], [9, 3, 2])))
    expect(Chunk.toReadonlyArray(down).map((x) => `${x.tag}${x.t}`)).toEqual(["s9", "f8", "f3", "f3", "s3", "s2", "f1"])
    const oneSided = run(Stream.runCollect(merge([], [5, 4, 4])))
    expect(Chunk.toReadonlyArray(oneSided).map((x) => x.t)).toEqual([5, 4, 4])
  })

  it("is lazy: a few entries pull only a few bills", () => {
    const pulls: Array<string> = []
    const first = run(Stream.runCollect(Stream.take(merge([1, 2, 3, 4, 5, 6], [10, 11, 12], pulls), 2)))
    expect(Chunk.toReadonlyArray(first).map((x) => x.t)).toEqual([1, 2])
    expect(pulls.length).toBeLessThanOrEqual(4)
  })

  it("fails rather than emit out of order", () => {
    const exit = Effect.runSyncExit(Stream.runCollect(merge([1, 5, 2], [3])))
    expect(exit._tag).toBe("Failure")
    const against = Effect.runSyncExit(Stream.runCollect(merge([1, 2], [9, 3])))
    expect(against._tag).toBe("Failure")
  })
})

describe("orderGroup", () => {
  // Small balances so that walks revisit them: cycles, self-loops and parallel edges.
  const walk = fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 12 })

  it("finds a trail from the start through any shuffled walk, and never drops a bill", () => {
    fc.assert(
      fc.property(walk, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (nodes, seed) => {
        const links = nodes.slice(1).map((to, i) => ({ bill: i, from: String(nodes[i]), to: String(to) }))
        const random = seeded(seed)
        const shuffled = [...links].sort(() => random() - 0.5)
        const ordered = orderGroup(String(nodes[0]), shuffled)
        expect([...ordered].sort((a, b) => a.bill - b.bill)).toEqual(links)
        expect(ordered[0]?.from).toBe(String(nodes[0]))
        for (let i = 1; i < ordered.length; i++) expect(ordered[i]?.from).toBe(ordered[i - 1]?.to)
      }),
      { numRuns: 300 }
    )
  })

  it("lays out a group with no trail with the fewest jumps, dropping nothing", () => {
    fc.assert(
      fc.property(walk, fc.integer({ min: 0, max: 10 }), (nodes, cut) => {
        const links = nodes.slice(1).map((to, i) => ({ bill: i, from: String(nodes[i]), to: String(to) }))
        const gap = links.filter((_, i) => i !== cut % links.length)
        const ordered = orderGroup(String(nodes[0]), gap)
        expect(ordered).toHaveLength(gap.length)
        let jumps = ordered[0]?.from === String(nodes[0]) ? 0 : 1
        for (let i = 1; i < ordered.length; i++) if (ordered[i]?.from !== ordered[i - 1]?.to) jumps++
        // One bill out of a walk leaves at most one jump (none if it was a loop or the last step).
        expect(jumps).toBeLessThanOrEqual(1)
      }),
      { numRuns: 300 }
    )
  })
})
