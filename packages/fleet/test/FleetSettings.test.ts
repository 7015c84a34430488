/**
 * A runner honours the client settings `bills sync` reads: against an exchange that serves v3
 * only, a runner under `WEEX_API_VERSION=v3` brings every account current, field for field (a
 * runner that built its settings from `WEEX_BASE_URL` alone spoke v2 and every pass failed).
 * With the runner's defaults its first sync keeps every request: at most 1.05 requests per 100
 * bills stored, each kind, as the exchange counts them (issue 29 §2: the passes threw away what
 * they had read ahead, and each pass after a kind was current asked for it again).
 */
import { BillsStore } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FleetStatus } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { scopedRunner } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl } from "./support/services.js"

const accounts = 3
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `v3-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `v3-${i}`

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a runner's client settings", () => {
  it.live(
    "WEEX_API_VERSION=v3: every account current against a v3 exchange, every request a page kept",
    () =>
      Effect.gen(function* () {
        const { db, exchange, database, current } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          exchangeOf: (i, now) => ({
            apiVersion: "v3",
            generate: { seed: 50 + i, funding: 3_000, spot: 6_000, startMillis: now - 3 * day, endMillis: now - 60_000 }
          })
        })
        const [port = 0] = yield* freePorts(1)
        yield* scopedRunner("v3", {
          db,
          exchangeUrl: exchange.url,
          port,
          interval: "30s",
          env: { WEEX_API_VERSION: "v3" }
        })
        const errors = FleetStatus.all.pipe(
          Effect.map((rows) => rows.flatMap((row) => [row.funding.error, row.spot.error]).filter((e) => e !== null)),
          Effect.provide(database)
        )
        const deadline = Date.now() + 150_000
        while (!(yield* current(true)) && (yield* errors).length === 0 && Date.now() < deadline) {
          yield* Effect.sleep("250 millis")
        }
        expect(yield* errors).toEqual([])
        expect(yield* current(true)).toBe(true)
        // No pass at the interval yet (30 s): what the exchange saw is the first sync's.
        for (let i = 0; i < accounts; i++) {
          const seen = exchange.requests().filter((request) => request.key === credentialsOf(i).apiKey)
          const perHundred = (operation: string, stored: number) =>
            (100 * seen.filter((request) => request.operation === operation).length) / stored
          expect(perHundred("fundingBills", 3_000)).toBeLessThanOrEqual(1.05)
          expect(perHundred("spotBills", 6_000)).toBeLessThanOrEqual(1.05)
        }
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
    200_000
  )
})
