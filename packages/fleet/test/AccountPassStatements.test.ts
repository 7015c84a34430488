/**
 * What a fleet pass that finds nothing asks of PostgreSQL (issue 38, section 3): every account is
 * passed every interval, and nearly every pass finds nothing, so each statement is paid thousands
 * of times a minute by the runner and by the server. Counted where node-postgres sends them, one
 * pass of a current account through the real HttpClient pipeline against the loopback exchange.
 */
import { BillsStore } from "@account-bills/store"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { statementsOf } from "../../store/test/support/statements.js"
import { AddressBudget, FleetMetrics } from "../src/index.js"
import { oneSteadyAccount, passOf } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"

const keys = { apiKey: "k-steady", secret: "s-steady", passphrase: "p-steady" }

describe.skipIf(postgresUrl === undefined)("a fleet pass that finds nothing, on PostgreSQL", () => {
  it.live("registers once per store, takes each kind's lease with its state, and lets it go with the walk's end", () =>
    Effect.gen(function* () {
      const { database, exchange, now } = yield* oneSteadyAccount("steady", keys)
      yield* Effect.gen(function* () {
        const pass = yield* passOf("steady", exchange.url, ["funding", "spot"])
        const first = yield* pass
        expect(first.map((kind) => [kind.kind, kind.done, kind.error])).toEqual([
          ["funding", true, undefined],
          ["spot", true, undefined]
        ])
        const { result, sent } = yield* statementsOf(pass)
        expect(result.map((kind) => [kind.kind, kind.done, kind.added, kind.error])).toEqual([
          ["funding", true, 0, undefined],
          ["spot", true, 0, undefined]
        ])
        // The account's row not read again (the store read it in the first pass); per kind the
        // lease taken with the state, and the walk's end recorded with the lease let go. No state
        // read for the lag gauges (the syncs report their windows), no release of its own, no
        // transaction.
        expect(sent.filter((text) => /^SELECT account, fingerprint, label FROM ab_accounts /.test(text))).toHaveLength(
          0
        )
        expect(
          sent.filter((text) => /^UPDATE ab_sync SET lease_owner = \$1, .* RETURNING covered_from/.test(text))
        ).toHaveLength(2)
        expect(
          sent.filter((text) =>
            /^UPDATE ab_sync SET cursor = NULL, .* lease_owner = NULL, lease_until = NULL WHERE /.test(text)
          )
        ).toHaveLength(2)
        expect(sent).toHaveLength(4)
        // The gauges still say where the store stands.
        const store = yield* BillsStore
        for (const kind of ["funding", "spot"] as const) {
          const state = yield* store.state("steady", kind)
          const gauge = yield* Metric.value(
            FleetMetrics.coveredTo.pipe(Metric.tagged("account", "steady"), Metric.tagged("kind", kind))
          )
          expect(gauge.value).toBe(state.covered?.to)
          expect(state.covered?.to).toBeGreaterThan(now - 60_000)
        }
      }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
    }).pipe(Effect.scoped)
  )
})
