/**
 * The futures account in what a monitoring check reads (`bills fleet status`' exit code and
 * summary, a runner's `account_bills_fleet_failing_since_millis`): a key that reads futures bills
 * and then stops (its permission taken away) is failing, as a funding or spot failure is; a key
 * the futures interface refused from the start has no futures account to watch, and pages no one
 * for ever (its refusal stays in the status's error column).
 */
import { FakeFault } from "@account-bills/core/testing"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AccountPass, AddressBudget, FleetAccounts, FleetStatus } from "../src/index.js"
import { metricsText, parseMetrics } from "./support/inProcessRunner.js"
import { freePorts } from "./support/ports.js"
import { billsToEnd, scopedRunner } from "./support/runnerProcess.js"
import { passOf, seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redisUrl } from "./support/services.js"
import { until } from "./support/until.js"

const day = 86_400_000
const labelOf = (i: number) => `fut-${i}`
const credentialsOf = (i: number) => ({ apiKey: `fut-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
/** Reads futures bills, then its futures permission is taken away. */
const lost = labelOf(0)
/** Never had a futures account: the futures interface refuses it from the first pass. */
const none = labelOf(1)
const permission = FakeFault.Code({ status: 403, code: "40014", msg: "Incorrect permissions" })

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)(
  "the futures account in the fleet's alerts",
  () => {
    it.live(
      "futures read then lost: failing (exit 3, failing-since); futures never readable: not failing",
      () =>
        Effect.gen(function* () {
          const { db, exchange, database } = yield* seededFleet({
            accounts: 2,
            labelOf,
            credentialsOf,
            perAddress: false,
            exchangeOf: (i, now) => ({
              rateLimit: false,
              generate: {
                seed: 70 + i,
                funding: 20,
                spot: 20,
                contract: 20,
                startMillis: now - day,
                endMillis: now - 60_000
              }
            })
          })
          const fakeOf = (i: number) => {
            const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
            return fake === undefined ? Effect.dieMessage(`no exchange for ${labelOf(i)}`) : Effect.succeed(fake)
          }
          const refuseFutures = (i: number) =>
            Effect.flatMap(fakeOf(i), (fake) =>
              fake.failNext(permission, { operation: "contractBills", count: 1_000_000 })
            )
          /** A pass of account `i` as a runner makes and records it. */
          const passAndRecord = (i: number) =>
            Effect.gen(function* () {
              const outcomes = yield* yield* passOf(labelOf(i), exchange.url)
              yield* (yield* FleetAccounts).record(
                labelOf(i),
                AccountPass.errorsOf(outcomes),
                outcomes.some((outcome) => outcome.refused)
              )
            })
          const status = FleetStatus.all.pipe(Effect.orDie)
          yield* Effect.gen(function* () {
            yield* refuseFutures(1)
            // A futures walk proves its empty years back to 2018 twenty pages a pass.
            for (let pass = 0; pass < 3; pass++) yield* Effect.forEach([0, 1], passAndRecord, { discard: true })
            const before = yield* status
            const row = (label: string) => before.find((each) => each.label === label)
            expect(row(lost)?.contract.coveredTo).not.toBeNull()
            expect(row(none)?.contract).toMatchObject({ coveredTo: null, error: expect.stringContaining("40014") })
            // Only the key without futures has an error, and it is not one a check watches.
            const first = yield* billsToEnd(["status", "--db", db])
            expect(first.code, first.output).toBe(0)
            expect(first.output).toContain("2 accounts: 2 current, 0 behind, 0 failing")
            expect(first.output).toContain("contract: contractBills: the exchange refused the request (Permission")

            yield* refuseFutures(0)
            yield* passAndRecord(0)
            const after = yield* status
            expect(after.find((each) => each.label === lost)?.contract.errorSince).not.toBeNull()
          }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))

          const failing = yield* billsToEnd(["status", "--db", db])
          expect(failing.code, failing.output).toBe(3)
          expect(failing.output).toContain(`1 of 2 accounts failing: ${lost}`)

          // A runner's gauge says the same: failing since the futures kind's first failed pass.
          const [port = 0, metricsPort = 0] = yield* freePorts(2)
          yield* scopedRunner("fut", { db, exchangeUrl: exchange.url, port, metricsPort, interval: "1m" })
          const rows = yield* status.pipe(Effect.provide(database))
          const since = rows.find((each) => each.label === lost)?.contract.errorSince
          const seen: Array<string> = []
          yield* until("failing-since of both accounts on /metrics", 60_000, async () => {
            const samples = await Effect.runPromise(metricsText(metricsPort).pipe(Effect.map(parseMetrics))).catch(
              () => []
            )
            const of = (label: string) =>
              samples
                .filter((s) => s.name === "account_bills_fleet_failing_since_millis" && s.labels.account === label)
                .map((s) => s.value)
            seen.splice(0, seen.length, `${lost}: ${of(lost)}`, `${none}: ${of(none)}`)
            return JSON.stringify(of(lost)) === JSON.stringify([since]) && JSON.stringify(of(none)) === "[0]"
          }).pipe(
            Effect.tapDefect(() => Effect.sync(() => console.error(`expected ${since}; seen ${seen.join("; ")}`)))
          )
        }).pipe(Effect.scoped),
      120_000
    )
  }
)
