/**
 * What a sync that finds nothing new asks of PostgreSQL (issue 38, section 3): a fleet passes
 * every account every interval, and nearly every pass finds nothing, so each statement of such a
 * pass is paid thousands of times a minute, by the runner and by the server. The statements are
 * counted where node-postgres sends them, through the whole stack (Sync, the store, @effect/sql).
 */
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"
import { engines } from "./support/engines.js"
import { runOnTestClock } from "./support/runOnTestClock.js"
import { statementsOf } from "./support/statements.js"

const postgres = engines.find((engine) => engine.name === "postgres")
const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "main")

/** A fresh PostgreSQL store, and the test exchange with the bills `generate` makes. */
const freshStore = (generate: { seed: number; funding: number; spot: number; contract: number }) =>
  Layer.provideMerge(
    Layer.unwrapEffect(Effect.map((postgres ?? (engines[0] as (typeof engines)[number])).fresh, StoreLayer.layer)),
    TestBillsApi.layerStack({ exchange: { rateLimit: false, generate } })
  )

describe.skipIf(postgres === undefined)("a first sync, on PostgreSQL", () => {
  it.effect("commits each page of bills in one statement, the bills behind the fence", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 4, 1))
      const { result, sent } = yield* statementsOf(
        runOnTestClock(Sync.run({ account, kinds: ["funding", "spot", "contract"], lease: "1 hour" }))
      )
      expect(result.map((summary) => [summary.kind, summary.added === summary.stored, summary.done])).toEqual([
        ["funding", true, true],
        ["spot", true, true],
        ["contract", true, true]
      ])
      expect(result.map((summary) => summary.stored)).toEqual([250, 250, expect.any(Number)])
      expect(result[2]?.stored).toBeGreaterThan(100)
      // Per page with bills one statement: the fenced cursor, the bills inserted behind it. No
      // bills inserted on their own, and no transaction but the ones that make the account's row
      // and each kind's (once per store, not per page).
      const behind = sent.filter((text) => /^WITH fence AS \(UPDATE ab_sync SET .* INSERT INTO "ab_/.test(text))
      expect(sent.filter((text) => /^INSERT INTO "ab_(bills|contract_bills)"/.test(text))).toEqual([])
      expect(sent.filter((text) => text === "BEGIN")).toHaveLength(1 + 3)
      expect(behind.filter((text) => text.includes('INSERT INTO "ab_bills"'))).toHaveLength(
        (result[0]?.pages ?? 0) + (result[1]?.pages ?? 0) - 2
      )
      expect(behind.filter((text) => text.includes('INSERT INTO "ab_contract_bills"')).length).toBeGreaterThanOrEqual(2)
    }).pipe(Effect.provide(freshStore({ seed: 43, funding: 250, spot: 250, contract: 150 })))
  )
})

describe.skipIf(postgres === undefined)("a sync that finds nothing new, on PostgreSQL", () => {
  it.effect("sends one statement per step it must take, and no transaction", () =>
    Effect.gen(function* () {
      // A lease far longer than the sync, so that no renewal runs while the statements are counted.
      const sync = Sync.run({ account, kinds: ["funding", "spot"], lease: "1 hour" })
      yield* TestClock.setTime(Date.UTC(2025, 4, 1))
      yield* runOnTestClock(sync)
      const store = yield* BillsStore
      const before = yield* Effect.all([store.coverage(account.id, "funding"), store.coverage(account.id, "spot")])
      yield* TestClock.adjust("1 minute")
      const { result, sent } = yield* statementsOf(runOnTestClock(sync))
      expect(result.map((summary) => [summary.kind, summary.added, summary.done])).toEqual([
        ["funding", 0, true],
        ["spot", 0, true]
      ])
      // The account's row not read again (this store read it in the first sync, and a row of
      // `ab_accounts` never changes); per kind: the lease taken with the state read in the same
      // statement, the walk's end recorded under the fence with the lease let go in the same
      // statement, the bills counted. Nothing else: no BEGIN and COMMIT around a single
      // statement, no insert, no state read or release of their own.
      const register = /^SELECT account, fingerprint, label FROM ab_accounts /
      const perKind = [
        /^UPDATE ab_sync SET lease_owner = \$1, lease_until = \$2 .* RETURNING covered_from, covered_to, cursor, server_order, lease_owner, lease_until, aged_out$/,
        /^UPDATE ab_sync SET cursor = NULL, covered_from = .* lease_owner = NULL, lease_until = NULL WHERE /,
        /^SELECT COUNT\(\*\) AS n FROM ab_bills /
      ]
      expect(sent.filter((text) => /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|INSERT)\b/.test(text))).toEqual([])
      expect(sent).toHaveLength(2 * perKind.length)
      expect(sent.filter((text) => register.test(text))).toHaveLength(0)
      for (const pattern of perKind) expect(sent.filter((text) => pattern.test(text))).toHaveLength(2)
      // A caller that does not report what the store holds (a fleet's pass) leaves the count out.
      yield* TestClock.adjust("1 minute")
      const uncounted = yield* statementsOf(
        runOnTestClock(Sync.run({ account, kinds: ["funding", "spot"], lease: "1 hour", countStored: false }))
      )
      expect(uncounted.result.map((summary) => summary.stored)).toEqual([undefined, undefined])
      expect(uncounted.sent.filter((text) => /COUNT/.test(text))).toEqual([])
      expect(uncounted.sent).toHaveLength(2 * (perKind.length - 1))
      // The label still belongs to its key: another key under it is refused, from what was read.
      const other = StoreAccount.make(Redacted.make("another-key"), "main")
      const refused = yield* statementsOf(Effect.flip(store.register(other)))
      expect(refused.result._tag).toBe("StoreAccountMismatch")
      expect(refused.sent).toEqual([])
      // The passes recorded what they read: the covered window reaches the new now.
      const after = yield* Effect.all([store.coverage(account.id, "funding"), store.coverage(account.id, "spot")])
      for (const [i, kind] of after.entries()) {
        expect(kind.bills).toBe(before[i]?.bills)
        expect(kind.unfinished).toBe(false)
        expect(kind.coveredTo).toBeGreaterThan(before[i]?.coveredTo ?? Number.POSITIVE_INFINITY)
      }
    }).pipe(Effect.provide(freshStore({ seed: 41, funding: 250, spot: 250, contract: 0 })))
  )
})
