/**
 * What most fleet tests start from: a fresh database on the test PostgreSQL with accounts added,
 * the loopback exchange that holds each account's generated history, and the check that every
 * account's store holds all of it.
 */
import type { FakeExchangeOptions } from "@account-bills/core/testing"
import { BillsStore } from "@account-bills/store"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { BillsRateLimiter, type BillKind } from "@account-bills/core"
import { AccountPass, FleetAccounts, FleetCipher, FleetDatabase, FleetStatus } from "../../src/index.js"
import * as FleetExchange from "./FleetExchange.js"
import { addAccounts, freshDatabase, postgresUrl, type TestCredentials, testKey } from "./services.js"

export interface SeededFleetOptions {
  readonly accounts: number
  readonly labelOf: (i: number) => string
  readonly credentialsOf: (i: number) => TestCredentials
  /** The exchange's limit per source address (`false`: none). */
  readonly perAddress: FleetExchange.FleetExchangeOptions["perAddress"]
  /** Account `i`'s exchange besides its credentials (its history, its version), given the time the fleet was made. */
  readonly exchangeOf: (i: number, now: number) => Omit<FakeExchangeOptions, "credentials">
  /** The round trip to the exchange; default none (loopback). */
  readonly latency?: FleetExchange.FleetExchangeOptions["latency"]
  /** `false`: the accounts are added later, by the answer's `add` (a runner started before them). */
  readonly added?: boolean
}

/** The accounts added to a fresh database, and the exchange that holds their histories. */
export const seededFleet = (options: SeededFleetOptions) =>
  Effect.gen(function* () {
    const db = yield* freshDatabase(postgresUrl ?? "")
    const now = Date.now()
    const exchange = yield* FleetExchange.serve({
      perAddress: options.perAddress,
      latency: options.latency,
      accounts: Array.from({ length: options.accounts }, (_, i) => ({
        ...options.exchangeOf(i, now),
        credentials: options.credentialsOf(i)
      }))
    })
    // With the cipher: a test that writes rows as an older version did seals with it.
    const database = FleetDatabase.layer(db).pipe(Layer.provideMerge(FleetCipher.layer(Redacted.make(testKey))))
    /** Adds the accounts to the fleet (done at once unless `added` is `false`). */
    const add: Effect.Effect<void> = addAccounts(options.accounts, options.labelOf, options.credentialsOf).pipe(
      Effect.provide(database),
      Effect.orDie
    )
    if (options.added !== false) yield* add
    /**
     * Every account's store holds as many bills of each kind as its exchange (and, with
     * `covered`, knows up to when it holds them all).
     */
    const current = (covered = false): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        const rows = yield* FleetStatus.all
        const labels = Array.from({ length: options.accounts }, (_, i) => options.labelOf(i))
        for (const row of rows) {
          const fake = exchange.exchanges.get(options.credentialsOf(labels.indexOf(row.label)).apiKey)
          if (fake === undefined) return false
          if (row.funding.bills !== (yield* fake.bills("funding")).length) return false
          if (row.spot.bills !== (yield* fake.bills("spot")).length) return false
          if (covered && (row.funding.coveredTo === null || row.spot.coveredTo === null)) return false
        }
        return rows.length === options.accounts
      }).pipe(Effect.provide(database), Effect.orDie)
    /** Every account's store equals its exchange, field for field (expects, so a difference fails the test). */
    const exact: Effect.Effect<void> = Effect.gen(function* () {
      const store = yield* BillsStore
      const sorted = (lines: ReadonlyArray<string>) => [...lines].sort()
      for (let i = 0; i < options.accounts; i++) {
        const label = options.labelOf(i)
        const fake = exchange.exchanges.get(options.credentialsOf(i).apiKey)
        if (fake === undefined) return yield* Effect.dieMessage(`no exchange for ${label}`)
        const funding = yield* store.fundingPage(label, { pageIndex: 1, pageSize: 1_000_000 })
        const spot = yield* store.spotPage(label, { limit: 1_000_000 })
        expect(sorted(funding.items.map((bill) => JSON.stringify(bill.raw))), label).toEqual(
          sorted((yield* fake.bills("funding")).map((bill) => JSON.stringify(bill)))
        )
        expect(sorted(spot.map((bill) => JSON.stringify(bill.raw))), label).toEqual(
          sorted((yield* fake.bills("spot")).map((bill) => JSON.stringify(bill)))
        )
      }
    }).pipe(Effect.provide(database), Effect.orDie)
    return { db, now, exchange, database, add, current, exact }
  })

/** The fleet `seededFleet` makes, for the lifetime of the scope. */
export type SeededFleet = Effect.Effect.Success<ReturnType<typeof seededFleet>>

/**
 * One account with 150 funding and 150 spot bills of the last day, on a loopback exchange with no
 * limit: the fleet on which a pass that finds nothing is measured.
 */
export const oneSteadyAccount = (label: string, credentials: TestCredentials) =>
  seededFleet({
    accounts: 1,
    labelOf: () => label,
    credentialsOf: () => credentials,
    perAddress: false,
    exchangeOf: (_, now) => ({
      rateLimit: false,
      generate: { seed: 9, funding: 150, spot: 150, startMillis: now - 86_400_000, endMillis: now - 60_000 }
    })
  })

/** A pass of the account `label` as a runner makes it, at a per-key limit far above what it sends. */
export const passOf = (label: string, baseUrl: string, kinds?: ReadonlyArray<BillKind>) =>
  Effect.gen(function* () {
    const opened = yield* (yield* FleetAccounts).open(label)
    const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
    return AccountPass.run(opened.account, opened.credentials, perKey, {
      pagesPerPass: 20,
      config: { baseUrl },
      ...(kinds === undefined ? {} : { kinds })
    })
  })
