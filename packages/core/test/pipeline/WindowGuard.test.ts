import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { BillsApi } from "../../src/index.js"
import { envelope, makeStub } from "../support/stubHttp.js"

const t0 = 1_700_000_000_000

const spotRecord = (billId: string, cTime: number) => ({
  billId,
  coinId: 1,
  coinName: "BTC",
  bizType: "trade_in",
  fillSize: "0.1",
  fillValue: "3000",
  deltaAmount: "0.1",
  afterAmount: "0.1",
  fees: "0",
  cTime: String(cTime)
})

const fundingPage = (cTimes: ReadonlyArray<number>) => ({
  total: cTimes.length,
  page: 1,
  pageSize: 100,
  hasNextPage: false,
  items: cTimes.map((cTime, i) => ({ ...spotRecord(String(800 + i), cTime), fillSize: null, fillValue: null }))
})

/** An exchange that answers the newest bills whatever window is asked, as one that read `after` as a bill id would. */
const ignoringBounds = makeStub([
  { status: 200, body: envelope([spotRecord("2", t0 + 5_000), spotRecord("1", t0 + 10)]) }
])

describe("an answer from outside the window asked for", () => {
  it.effect("fails the spot call with BillsIncomplete naming the bill and the window", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const error = yield* Effect.flip(api.spotBills({ after: t0, before: t0 + 1_000 }))
      expect(error).toMatchObject({ _tag: "BillsIncomplete", operation: "spotBills", millisecond: t0 + 5_000 })
      expect(error.message).toContain("outside the window")
      // Bills at the bounds themselves are inside: the bound convention is the server's.
      const stub = makeStub([{ status: 200, body: envelope([spotRecord("3", t0 + 1_000), spotRecord("4", t0)]) }])
      const edges = yield* Effect.provide(
        Effect.flatMap(BillsApi, (client) => client.spotBills({ after: t0, before: t0 + 1_000 })),
        stub.layer
      )
      expect(edges.length).toBe(2)
    }).pipe(Effect.provide(ignoringBounds.layer))
  )

  it.effect("fails the spot stream instead of ending it with a gap", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t0 + 20_000)
      const api = yield* BillsApi
      const error = yield* Effect.flip(Stream.runDrain(api.streamSpotBills({ from: t0, to: t0 + 1_000 })))
      expect(error._tag).toBe("BillsIncomplete")
    }).pipe(Effect.provide(ignoringBounds.layer))
  )

  it.effect("fails the funding call when an item lies past endTime", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      const error = yield* Effect.flip(api.fundingBills({ startTime: t0, endTime: t0 + 100 }))
      expect(error).toMatchObject({ _tag: "BillsIncomplete", operation: "fundingBills", millisecond: t0 + 101 })
    }).pipe(Effect.provide(makeStub([{ status: 200, body: envelope(fundingPage([t0 + 50, t0 + 101])) }]).layer))
  )

  it.effect("calls without bounds are not checked", () =>
    Effect.gen(function* () {
      const api = yield* BillsApi
      expect((yield* api.spotBills()).length).toBe(2)
    }).pipe(Effect.provide(ignoringBounds.layer))
  )
})
