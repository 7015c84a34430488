import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import { BillsApi, type FundingBillsParams, type SpotBillsParams } from "../../src/index.js"
import { envelope, makeStub } from "../support/stubHttp.js"

const badFunding: ReadonlyArray<readonly [string, FundingBillsParams, string, string]> = [
  ["pageSize 0", { pageSize: 0 }, "pageSize", "1 to 100"],
  ["pageSize 101", { pageSize: 101 }, "pageSize", "1 to 100"],
  ["pageSize 1.5", { pageSize: 1.5 }, "pageSize", "integer"],
  ["pageIndex 0", { pageIndex: 0 }, "pageIndex", "at least 1"],
  ["pageIndex -3", { pageIndex: -3 }, "pageIndex", "at least 1"],
  ["coinId 0", { coinId: 0 }, "coinId", "positive integer"],
  ["coinId -1", { coinId: -1 }, "coinId", "positive integer"],
  ["coinId 2.5", { coinId: 2.5 }, "coinId", "integer"],
  ["a bizType with a space", { bizType: "trade in" }, "bizType", "letters, digits or underscores"],
  ["an empty bizType", { bizType: "" }, "bizType", "letters, digits or underscores"],
  ["startTime negative", { startTime: -1 }, "startTime", "epoch milliseconds"],
  ["startTime not an integer", { startTime: 1.5 }, "startTime", "epoch milliseconds"],
  ["an invalid Date", { endTime: new Date(Number.NaN) }, "endTime", ""],
  ["start after end", { startTime: 2000, endTime: 1000 }, "startTime", "must not be after endTime"],
  [
    "start after end as DateTime",
    { startTime: DateTime.unsafeMake(2000), endTime: new Date(1000) },
    "startTime",
    "must not be after endTime"
  ]
]

const badSpot: ReadonlyArray<readonly [string, SpotBillsParams, string, string]> = [
  ["limit 0", { limit: 0 }, "limit", "1 to 100"],
  ["limit 101", { limit: 101 }, "limit", "1 to 100"],
  ["coinId 0", { coinId: 0 }, "coinId", "positive integer"],
  ["a bizType with a quote", { bizType: 'deposit"' }, "bizType", "letters, digits or underscores"],
  ["after after before", { after: 5000, before: 4000 }, "after", "must not be after before"],
  ["before not a number", { before: "yesterday" as unknown as number }, "before", ""]
]

describe("parameters", () => {
  for (const [name, params, field, rule] of badFunding) {
    it.effect(`fundingBills rejects ${name} and sends nothing`, () => {
      const stub = makeStub([{ status: 200, body: envelope({}) }])
      return Effect.gen(function* () {
        const api = yield* BillsApi
        const error = yield* Effect.flip(api.fundingBills(params))
        expect(error._tag).toBe("InvalidParams")
        if (error._tag !== "InvalidParams") return
        expect(error.field).toBe(field)
        expect(error.rule).toContain(rule)
        expect(error.message).toContain(field)
        expect(stub.requests).toHaveLength(0)
      }).pipe(Effect.provide(stub.layer))
    })
  }

  for (const [name, params, field, rule] of badSpot) {
    it.effect(`spotBills rejects ${name} and sends nothing`, () => {
      const stub = makeStub([{ status: 200, body: envelope([]) }])
      return Effect.gen(function* () {
        const api = yield* BillsApi
        const error = yield* Effect.flip(api.spotBills(params))
        expect(error._tag).toBe("InvalidParams")
        if (error._tag !== "InvalidParams") return
        expect(error.field).toBe(field)
        expect(error.rule).toContain(rule)
        expect(stub.requests).toHaveLength(0)
      }).pipe(Effect.provide(stub.layer))
    })
  }

  it.effect("time bounds accept DateTime, Date and epoch ms, and are sent as digit strings", () => {
    const stub = makeStub([{ status: 200, body: envelope([]) }])
    return Effect.gen(function* () {
      const api = yield* BillsApi
      yield* api.spotBills({ after: DateTime.unsafeMake(1000), before: new Date(2000), limit: 100 })
      yield* api.spotBills({ after: 3000, before: DateTime.unsafeMakeZoned(4000, { timeZone: "Europe/Berlin" }) })
      expect(stub.requests.map((r) => r.body)).toEqual([
        '{"after":"1000","before":"2000","limit":100}',
        '{"after":"3000","before":"4000"}'
      ])
      const result = yield* Effect.either(api.fundingBills({ startTime: 5, endTime: 5 }))
      expect(Either.isRight(result) || result.left._tag !== "InvalidParams").toBe(true)
    }).pipe(Effect.provide(stub.layer))
  })

  it.effect("a bizType beyond the documented ones, of the right shape, is sent as given", () => {
    const stub = makeStub([
      { status: 200, body: envelope({ total: 0, page: 1, pageSize: 10, hasNextPage: false, items: [] }) },
      { status: 200, body: envelope([]) },
      { status: 200, body: envelope([]) }
    ])
    return Effect.gen(function* () {
      const api = yield* BillsApi
      yield* api.fundingBills({ bizType: "airdrop_reward" })
      yield* api.spotBills({ bizType: "rake_back_reward" })
      // A documented value of the other account is a type the exchange uses too.
      yield* api.spotBills({ bizType: "c2c_buy" })
      expect(stub.requests.map((r) => r.body)).toEqual([
        '{"bizType":"airdrop_reward"}',
        '{"bizType":"rake_back_reward"}',
        '{"bizType":"c2c_buy"}'
      ])
    }).pipe(Effect.provide(stub.layer))
  })

  it("any text as a bizType: sent exactly as given when it has a business type's shape, else InvalidParams and nothing sent", async () => {
    const shaped = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,63}$/)
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(shaped, fc.string({ maxLength: 80 }), fc.string({ unit: "grapheme", maxLength: 70 })),
        (bizType) => {
          const stub = makeStub([{ status: 200, body: envelope([]) }])
          const wellFormed = /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(bizType)
          return Effect.gen(function* () {
            const api = yield* BillsApi
            const result = yield* Effect.either(api.spotBills({ bizType }))
            if (wellFormed) {
              expect(Either.isRight(result)).toBe(true)
              expect(stub.requests.map((r) => r.body)).toEqual([JSON.stringify({ bizType })])
            } else {
              expect(Either.isLeft(result) && result.left._tag === "InvalidParams").toBe(true)
              expect(stub.requests).toHaveLength(0)
            }
          }).pipe(Effect.provide(stub.layer), Effect.runPromise)
        }
      ),
      { numRuns: 300 }
    )
  })
})
