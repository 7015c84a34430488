/**
 * One account through the real HttpClient pipeline against the loopback fleet exchange: a pass
 * stops at its page bound and the next resumes where it stopped, until the store holds exactly
 * the exchange's bills; `bills fleet status --json` then prints the account's line.
 */
import { type BillsConfigInput, BillsRateLimiter } from "@account-bills/core"
import { FakeFault } from "@account-bills/core/testing"
import { BillsStore } from "@account-bills/store"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { main } from "../../node/src/cli/FleetCli.js"
import { AccountPass, AddressBudget, FleetAccounts, FleetMetrics } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"

const keys = { apiKey: "k-1", secret: "s-1", passphrase: "p-1" }
/** The two kinds the first test's exchange holds. */
const kinds = ["funding", "spot"] as const

/**
 * A fleet of one account, "one", whose exchange (no rate limit) holds the history `generate`
 * describes, its times relative to now.
 */
const oneAccount = (generate: {
  readonly seed: number
  readonly funding: number
  readonly spot: number
  readonly startMillis: number
  readonly endMillis: number
}) =>
  Effect.gen(function* () {
    const fleet = yield* seededFleet({
      accounts: 1,
      labelOf: () => "one",
      credentialsOf: () => keys,
      perAddress: false,
      exchangeOf: (_, now) => ({
        rateLimit: false,
        generate: { ...generate, startMillis: now + generate.startMillis, endMillis: now + generate.endMillis }
      })
    })
    const fake = fleet.exchange.exchanges.get(keys.apiKey)
    if (fake === undefined) return yield* Effect.dieMessage("no exchange")
    return { ...fleet, fake }
  })

describe.skipIf(postgresUrl === undefined)("AccountPass", () => {
  it.live("a bounded pass stops after its pages; the next ones finish the walk; status prints the account", () =>
    Effect.gen(function* () {
      const { db, now, exchange, fake, database } = yield* oneAccount({
        seed: 5,
        funding: 420,
        spot: 380,
        startMillis: -3 * 86_400_000,
        endMillis: -60_000
      })
      const passes = yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        const opened = yield* accounts.open("one")
        const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
        const outcomes: Array<ReadonlyArray<AccountPass.KindOutcome>> = []
        while (outcomes.length < 20) {
          const outcome = yield* AccountPass.run(opened.account, opened.credentials, perKey, {
            pagesPerPass: 1,
            concurrency: 1,
            config: { baseUrl: exchange.url },
            // The page bound of the two kinds this exchange holds; the third has its own test.
            kinds: ["funding", "spot"]
          })
          outcomes.push(outcome)
          if (outcome.every((kind) => kind.done)) break
        }
        const store = yield* BillsStore
        const funding = yield* store.fundingPage("one", { pageIndex: 1, pageSize: 100_000 })
        const spot = yield* store.spotPage("one", { limit: 100_000 })
        const sorted = (lines: ReadonlyArray<string>) => [...lines].sort()
        expect(sorted(funding.items.map((bill) => JSON.stringify(bill.raw)))).toEqual(
          sorted((yield* fake.bills("funding")).map((bill) => JSON.stringify(bill)))
        )
        expect(sorted(spot.map((bill) => JSON.stringify(bill.raw)))).toEqual(
          sorted((yield* fake.bills("spot")).map((bill) => JSON.stringify(bill)))
        )
        return outcomes
      }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
      // 420 funding bills are 5 pages of 100: one page per pass, so the first passes stop short.
      expect(passes[0]?.map((kind) => kind.done)).toEqual([false, false])
      expect(passes.length).toBeGreaterThanOrEqual(5)
      expect(passes.flat().every((kind) => kind.error === undefined)).toBe(true)

      const lines: Array<string> = []
      const code = yield* Effect.withConsole(main(["node", "bills", "fleet", "status", "--db", db, "--json"]), {
        ...(yield* Effect.console),
        log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.map(String).join(" ")))
      })
      expect(code).toBe(0)
      expect(lines).toHaveLength(1)
      const status = JSON.parse(lines[0] ?? "{}")
      expect(status).toMatchObject({
        label: "one",
        funding: { bills: 420, error: null },
        spot: { bills: 380, error: null },
        owner: null
      })
      expect(status.funding.coveredTo).toBeGreaterThanOrEqual(now - 60_000)
      expect(status.spot.coveredTo).toBeGreaterThanOrEqual(now - 60_000)

      // A pass's figures are its own: the requests the exchange saw from it, the bills it added.
      yield* fake.appendGenerated("funding", 250, { startMillis: now - 50_000, endMillis: now - 40_000 })
      yield* fake.appendGenerated("spot", 250, { startMillis: now - 50_000, endMillis: now - 40_000 })
      const mark = exchange.requests().length
      const counted = Effect.all({
        done: Metric.value(Metric.tagged(FleetMetrics.passes, "outcome", "done")),
        bills: Effect.forEach(kinds, (kind) => Metric.value(Metric.tagged(FleetMetrics.bills, "kind", kind))),
        requests: Effect.forEach(kinds, (kind) => Metric.value(Metric.tagged(FleetMetrics.requests, "kind", kind)))
      })
      const before = yield* counted
      const started = Date.now()
      const incremental = yield* Effect.gen(function* () {
        const opened = yield* (yield* FleetAccounts).open("one")
        const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
        return yield* AccountPass.run(opened.account, opened.credentials, perKey, {
          pagesPerPass: 20,
          config: { baseUrl: exchange.url },
          kinds
        })
      }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
      const ended = Date.now()
      const after = yield* counted
      const seen = exchange.requests().slice(mark)
      // The pass's metrics: its outcome, the bills it added and requests it sent per kind, and
      // each kind's covered-to (the store's) and lag as of its end.
      expect(after.done.count - before.done.count).toBe(1)
      expect(kinds.map((_, i) => (after.bills[i]?.count ?? 0) - (before.bills[i]?.count ?? 0))).toEqual(
        incremental.map((kind) => kind.added)
      )
      expect(kinds.map((_, i) => (after.requests[i]?.count ?? 0) - (before.requests[i]?.count ?? 0))).toEqual(
        incremental.map((kind) => kind.requests)
      )
      for (const kind of kinds) {
        const to = (yield* Effect.flatMap(BillsStore, (store) => store.state("one", kind)).pipe(
          Effect.provide(database)
        )).covered?.to
        const tagged = (metric: Metric.Metric.Gauge<number>) =>
          metric.pipe(Metric.tagged("account", "one"), Metric.tagged("kind", kind))
        expect((yield* Metric.value(tagged(FleetMetrics.coveredTo))).value).toBe(to)
        const lag = (yield* Metric.value(tagged(FleetMetrics.lag))).value
        expect(lag).toBeGreaterThanOrEqual(started - (to ?? 0))
        expect(lag).toBeLessThanOrEqual(ended - (to ?? 0))
      }
      expect(incremental).toMatchObject([
        {
          kind: "funding",
          done: true,
          added: 250,
          requests: seen.filter((request) => request.operation === "fundingBills").length
        },
        {
          kind: "spot",
          done: true,
          added: 250,
          requests: seen.filter((request) => request.operation === "spotBills").length
        }
      ])
    }).pipe(Effect.scoped)
  )

  it.live(
    "a key the futures interface refuses: funding and spot kept current, the contract error in status, no back-off",
    () =>
      Effect.gen(function* () {
        const { db, exchange, fake, database } = yield* oneAccount({
          seed: 6,
          funding: 120,
          spot: 150,
          startMillis: -3 * 86_400_000,
          endMillis: -60_000
        })
        yield* fake.failNext(FakeFault.Code({ status: 403, code: "40014", msg: "Incorrect permissions" }), {
          operation: "contractBills",
          count: 1_000_000
        })
        const outcomes = yield* Effect.gen(function* () {
          const accounts = yield* FleetAccounts
          const opened = yield* accounts.open("one")
          const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
          const outcomes = yield* AccountPass.run(opened.account, opened.credentials, perKey, {
            pagesPerPass: 20,
            config: { baseUrl: exchange.url }
          })
          yield* accounts.record("one", AccountPass.errorsOf(outcomes))
          return outcomes
        }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
        expect(outcomes.map((kind) => [kind.kind, kind.done, kind.added, kind.refused])).toEqual([
          ["funding", true, 120, false],
          ["spot", true, 150, false],
          ["contract", false, 0, false]
        ])
        expect(outcomes[2]?.error).toContain("contractBills: the exchange refused the request (Permission, code 40014")

        const lines: Array<string> = []
        const code = yield* Effect.withConsole(main(["node", "bills", "fleet", "status", "--db", db, "--json"]), {
          ...(yield* Effect.console),
          log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.map(String).join(" ")))
        })
        expect(code).toBe(0)
        const status = JSON.parse(lines[0] ?? "{}")
        expect(status).toMatchObject({
          funding: { bills: 120, error: null },
          spot: { bills: 150, error: null },
          contract: { bills: 0, coveredTo: null }
        })
        expect(status.contract.error).toContain("Permission, code 40014")
        expect(status.contract.errorSince).toBeTypeOf("number")
      }).pipe(Effect.scoped)
  )
  it.live(
    "a refusal of the key (authentication or permission) marks funding and spot refused; of futures, or another failure, not; settings the client refuses fail every kind",
    () =>
      Effect.gen(function* () {
        const { exchange, fake, database } = yield* oneAccount({
          seed: 7,
          funding: 30,
          spot: 30,
          startMillis: -86_400_000,
          endMillis: -60_000
        })
        const fault = (status: number, code: string) => FakeFault.Code({ status, code, msg: "refused" })
        const outcomesOf = (config: BillsConfigInput) =>
          Effect.gen(function* () {
            const opened = yield* (yield* FleetAccounts).open("one")
            const perKey = yield* BillsRateLimiter.make({ limit: 1000 })
            return yield* AccountPass.run(opened.account, opened.credentials, perKey, { pagesPerPass: 20, config })
          }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
        const pass = Effect.map(outcomesOf({ baseUrl: exchange.url }), (outcomes) =>
          outcomes.map((kind) => [kind.kind, kind.refused, kind.error !== undefined])
        )
        yield* fake.failNext(fault(401, "40001"), { operation: "fundingBills" })
        yield* fake.failNext(fault(403, "40014"), { operation: "spotBills" })
        yield* fake.failNext(fault(403, "40014"), { operation: "contractBills" })
        expect(yield* pass).toEqual([
          ["funding", true, true],
          ["spot", true, true],
          // A key without futures is not refused: the account does not back off for it.
          ["contract", false, true]
        ])
        yield* fake.failNext(fault(400, "40017"), { operation: "fundingBills" })
        expect(yield* pass).toEqual([
          ["funding", false, true],
          ["spot", false, false],
          ["contract", false, false]
        ])
        // Settings the client refuses fail every kind, nothing sent, nothing refused.
        const misconfigured = yield* outcomesOf({ baseUrl: exchange.url, maxAttempts: 0 })
        expect(misconfigured.map((kind) => [kind.kind, kind.done, kind.added, kind.requests, kind.refused])).toEqual([
          ["funding", false, 0, 0, false],
          ["spot", false, 0, 0, false],
          ["contract", false, 0, 0, false]
        ])
        for (const kind of misconfigured) expect(kind.error).toContain("maxAttempts must be an integer of at least 1")
      }).pipe(Effect.scoped)
  )
})
