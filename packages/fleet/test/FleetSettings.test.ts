/**
 * A runner honours the client settings `bills sync` reads: against an exchange that serves v3
 * only, a runner under `WEEX_API_VERSION=v3` brings every account current, field for field (a
 * runner that built its settings from `WEEX_BASE_URL` alone spoke v2 and every pass failed).
 */
import { BillsStore } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetCipher, FleetDatabase, FleetStatus } from "../src/index.js"
import * as FleetExchange from "./support/FleetExchange.js"
import { scopedBills } from "./support/runnerProcess.js"
import { addAccounts, freshDatabase, postgresUrl, redisUrl, testKey } from "./support/services.js"

const accounts = 3
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `v3-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `v3-${i}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a runner's client settings", () => {
  it.live(
    "WEEX_API_VERSION=v3: every account current against a v3 exchange",
    () =>
      Effect.gen(function* () {
        const db = yield* freshDatabase(postgresUrl ?? "")
        const now = Date.now()
        const exchange = yield* FleetExchange.serve({
          perAddress: false,
          accounts: Array.from({ length: accounts }, (_, i) => ({
            apiVersion: "v3" as const,
            credentials: credentialsOf(i),
            generate: { seed: 50 + i, funding: 130, spot: 170, startMillis: now - 3 * day, endMillis: now - 60_000 }
          }))
        })
        const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
        yield* addAccounts(accounts, labelOf, credentialsOf).pipe(Effect.provide(database))
        const port = 42_900 + (process.pid % 500)
        yield* scopedBills("v3", ["run", "--db", db, "--port", String(port), "--interval", "2s"], {
          BILLS_FLEET_KEY: testKey,
          WEEX_BASE_URL: exchange.url,
          WEEX_API_VERSION: "v3"
        })
        const current = Effect.gen(function* () {
          const rows = yield* FleetStatus.all
          for (const [i, row] of rows.entries()) {
            const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
            if (fake === undefined) return false
            if (row.funding.bills !== (yield* fake.bills("funding")).length) return false
            if (row.spot.bills !== (yield* fake.bills("spot")).length) return false
            if (row.funding.coveredTo === null || row.spot.coveredTo === null) return false
          }
          return rows.length === accounts
        }).pipe(Effect.provide(database))
        const errors = FleetStatus.all.pipe(
          Effect.map((rows) => rows.flatMap((row) => [row.funding.error, row.spot.error]).filter((e) => e !== null)),
          Effect.provide(database)
        )
        const deadline = Date.now() + 60_000
        while (!(yield* current) && (yield* errors).length === 0 && Date.now() < deadline) {
          yield* Effect.sleep("250 millis")
        }
        expect(yield* errors).toEqual([])
        expect(yield* current).toBe(true)
        yield* Effect.gen(function* () {
          const store = yield* BillsStore
          for (let i = 0; i < accounts; i++) {
            const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
            if (fake === undefined) return yield* Effect.dieMessage("no exchange")
            const spot = yield* store.spotPage(labelOf(i), { limit: 1_000_000 })
            expect(spot.map((bill) => JSON.stringify(bill.raw)).sort()).toEqual(
              (yield* fake.bills("spot")).map((bill) => JSON.stringify(bill)).sort()
            )
          }
        }).pipe(Effect.provide(database))
      }).pipe(Effect.scoped),
    120_000
  )
})
