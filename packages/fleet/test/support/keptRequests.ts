/**
 * What an account's first sync through the fleet's passes costs, counted by the exchange: one
 * account, the passes a runner makes (its page bound, its per-key limit of 10 per second against
 * an exchange that enforces it) until both kinds are current; then 400 bills that became visible
 * late (inside the overlap) and 600 fresh ones, and the passes until current again. Shared by
 * the test of issue 29 §2 and the fleet bench, which prints it beside the old default.
 */
import { type ApiVersion, BillsRateLimiter } from "@account-bills/core"
import { type BillKind, BillsStore } from "@account-bills/store"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { AccountPass, AddressBudget, FleetAccounts, FleetCipher, FleetDatabase } from "../../src/index.js"
import * as FleetExchange from "./FleetExchange.js"
import { freshDatabase, testKey } from "./services.js"

export interface KeptOptions {
  readonly postgresUrl: string
  readonly apiVersion: ApiVersion
  readonly roundTripMillis: number
  /** Requests in flight per kind; default the runner's. */
  readonly concurrency?: number | undefined
  readonly funding: number
  readonly spot: number
}

/** Requests the exchange saw per kind, and its 429s. */
export interface Seen {
  readonly funding: number
  readonly spot: number
  readonly refused: number
}

export interface KeptFigures {
  readonly first: Seen & { readonly passes: number }
  readonly stored: { readonly funding: number; readonly spot: number }
  /** The passes after 1,000 new bills of each kind. */
  readonly steady: Seen & {
    readonly passes: number
    readonly added: { readonly funding: number; readonly spot: number }
  }
}

const keys = { apiKey: "k-kept", secret: "s-kept", passphrase: "p-kept" }
const day = 86_400_000

/** Measures one account's first sync and steady pass; fails when a pass fails. */
export const measureKept = (options: KeptOptions): Effect.Effect<KeptFigures, never, Scope.Scope> =>
  Effect.gen(function* () {
    const db = yield* freshDatabase(options.postgresUrl)
    const now = Date.now()
    const exchange = yield* FleetExchange.serve({
      perAddress: false,
      latency: { millis: options.roundTripMillis },
      accounts: [
        {
          apiVersion: options.apiVersion,
          credentials: keys,
          generate: {
            seed: 29,
            funding: options.funding,
            spot: options.spot,
            startMillis: now - 20 * day,
            endMillis: now - 120_000
          }
        }
      ]
    })
    const fake = exchange.exchanges.get(keys.apiKey)
    if (fake === undefined) return yield* Effect.dieMessage("no exchange")
    const seen = (from: number): Seen => {
      const requests = exchange.requests().slice(from)
      return {
        funding: requests.filter((request) => request.operation === "fundingBills").length,
        spot: requests.filter((request) => request.operation === "spotBills").length,
        refused: requests.filter((request) => request.status === 429).length
      }
    }
    const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
    return yield* Effect.gen(function* () {
      const accounts = yield* FleetAccounts
      yield* accounts.add("kept", {
        apiKey: Redacted.make(keys.apiKey),
        secret: Redacted.make(keys.secret),
        passphrase: Redacted.make(keys.passphrase)
      })
      const opened = yield* accounts.open("kept")
      const perKey = yield* BillsRateLimiter.make({ limit: 10 })
      const store = yield* BillsStore
      const count = Effect.all({ funding: store.count("kept", "funding"), spot: store.count("kept", "spot") })
      // The chain of passes a runner makes: each goes on with the walks the last one stopped.
      const untilCurrent = Effect.gen(function* () {
        let kinds: ReadonlyArray<BillKind> | undefined
        for (let passes = 1; passes <= 100; passes++) {
          const outcome = yield* AccountPass.run(opened.account, opened.credentials, perKey, {
            pagesPerPass: AccountPass.defaultPagesPerPass,
            concurrency: options.concurrency,
            config: { baseUrl: exchange.url, apiVersion: options.apiVersion },
            kinds
          })
          const failed = outcome.find((kind) => kind.error !== undefined)
          if (failed !== undefined) return yield* Effect.dieMessage(`${failed.kind}: ${failed.error}`)
          kinds = AccountPass.unfinished(outcome)
          if (kinds.length === 0) return passes
        }
        return yield* Effect.dieMessage("not current after 100 passes")
      })

      const firstPasses = yield* untilCurrent
      const first = { ...seen(0), passes: firstPasses }
      const stored = yield* count

      const states = yield* Effect.all([store.state("kept", "funding"), store.state("kept", "spot")])
      const coveredTo = Math.min(...states.map((state) => state.covered?.to ?? 0))
      // Fresh bills need a moment after the covered end; a first sync takes seconds, so this is
      // there already but for the quickest runs.
      const freshEnd = Math.max(Date.now() - 500, coveredTo + 1_000)
      yield* Effect.sleep(Math.max(0, freshEnd + 500 - Date.now()))
      for (const kind of ["funding", "spot"] as const) {
        yield* fake.appendGenerated(kind, 400, { startMillis: coveredTo - 50_000, endMillis: coveredTo - 1_000 })
        yield* fake.appendGenerated(kind, 600, { startMillis: coveredTo, endMillis: freshEnd })
      }
      const mark = exchange.requests().length
      const steadyPasses = yield* untilCurrent
      const after = yield* count
      return {
        first,
        stored,
        steady: {
          ...seen(mark),
          passes: steadyPasses,
          added: { funding: after.funding - stored.funding, spot: after.spot - stored.spot }
        }
      }
    }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)), Effect.orDie)
  })

/** Requests per 100 bills stored. */
export const perHundred = (requests: number, stored: number): number => (100 * requests) / stored
