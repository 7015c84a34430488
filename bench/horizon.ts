/**
 * The history horizon: what it costs a walk to find the exchange's rule. An exchange that
 * serves 90 days of 180 days of history (and, on top, refuses windows wider than 30 days) is
 * exported with no `from`, with `from` 2020-01-01, and with the width on top, 150 ms away, on
 * the TestClock (no real time passes). Each row gives the requests the walk made, of which
 * refused (code 40704) and probes (one-record requests over a millisecond), beside the same
 * export over the served days from an exchange with no rule: the difference is the horizon's
 * price.
 */
import { BillsApi, type BillsError, type FundingPage, type SpotPage } from "@account-bills/core"
import { TestBillsApi, FakeExchange, type FakeExchangeOptions } from "@account-bills/core/testing"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"

const day = 86_400_000
const now = Date.UTC(2025, 6, 1)

/** One export, measured. */
export interface HorizonRow {
  readonly account: "funding" | "spot"
  readonly case: string
  readonly bills: number
  readonly requests: number
  readonly refused: number
  readonly probes: number
  /** The same export over the served days from an exchange with no rule. */
  readonly baseline: number
  /** Where the walk's pages say the served history begins, ISO; empty when not clipped. */
  readonly servedFrom: string
}

const cases: ReadonlyArray<{
  readonly name: string
  readonly from: number | undefined
  readonly rules: Partial<FakeExchangeOptions>
}> = [
  { name: "no from", from: undefined, rules: { lookbackMillis: 90 * day } },
  { name: "from 2020-01-01", from: Date.UTC(2020, 0, 1), rules: { lookbackMillis: 90 * day } },
  {
    name: "from 2020-01-01, width 30 d on top",
    from: Date.UTC(2020, 0, 1),
    rules: { lookbackMillis: 90 * day, maxWindowMillis: 30 * day }
  }
]

const exportOnce = (account: "funding" | "spot", count: number, from: number | undefined, rules: object) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const api = yield* BillsApi
    const pages: Stream.Stream<FundingPage | SpotPage, BillsError> =
      account === "spot" ? api.streamSpotPages({ from }) : api.streamFundingPages({ from })
    const fiber = yield* Effect.fork(Stream.runCollect(pages))
    while ((yield* Fiber.poll(fiber))._tag === "None") yield* TestClock.adjust(100)
    const collected = [...(yield* Fiber.join(fiber))]
    const log = yield* Effect.flatMap(FakeExchange, (exchange) => exchange.requests)
    const calls = log.filter((r) => r.operation !== "serverTime")
    const params = (r: (typeof calls)[number]) => (r.params ?? {}) as Record<string, unknown>
    const last = collected[collected.length - 1]
    return {
      bills: collected.reduce((n, page) => n + page.bills.length, 0),
      requests: calls.length,
      refused: calls.filter((r) => r.outcome._tag === "Answered" && r.outcome.code === "40704").length,
      probes: calls.filter((r) => params(r).limit === 1 || params(r).pageSize === 1).length,
      servedFrom: last?.servedFrom === undefined ? "" : DateTime.formatIso(last.servedFrom)
    }
  }).pipe(
    Effect.provide(
      TestBillsApi.layerStack({
        exchange: {
          generate: {
            funding: account === "funding" ? count : 0,
            spot: account === "spot" ? count : 0,
            startMillis: now - 180 * day,
            endMillis: now - 1,
            seed: 17
          },
          latency: { millis: 150 },
          ...rules
        },
        rateLimit: {}
      })
    ),
    Effect.provide(TestContext.TestContext)
  )

/** Each case for both accounts, with `count` bills of each over 180 days. */
export const horizonBench = (count: number, log: (line: string) => void): Promise<ReadonlyArray<HorizonRow>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const rows: Array<HorizonRow> = []
      for (const account of ["funding", "spot"] as const) {
        const baseline = yield* exportOnce(account, count, now - 90 * day + 5_000, {})
        for (const c of cases) {
          log(`   ${account}, ${c.name} ...`)
          const measured = yield* exportOnce(account, count, c.from, c.rules)
          rows.push({ account, case: c.name, ...measured, baseline: baseline.requests })
        }
      }
      return rows
    })
  )
