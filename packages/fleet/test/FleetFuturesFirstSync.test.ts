/**
 * A fleet's first sync of many futures accounts (issue 52, section 4): nothing says where a
 * futures history starts, so the walk proves each 100 days back to the interface's opening empty,
 * one request each (33 in December 2026). Each page holds the walk's cursor, empty pages
 * included, and a page of a walk that goes on is committed as it arrives, before the next is asked
 * for (`Sync.run`): a pass cut at --pages-per-pass, a hand-over (a runner joins and takes its
 * shard) or a SIGKILL leaves nothing it was given uncommitted, and the account's next owner
 * resumes after it. Each slice is sent once per account: 33 requests, whatever happened.
 *
 * What no runner can keep is a request on its way when its process dies or its pass is cut: the
 * exchange has it, the runner never read its answer. So the test makes those moments quiet: it
 * takes the address budget's whole window itself (the runners share it through Redis), waits for
 * the requests already granted to land and be committed, kills or starts a runner, and gives the
 * budget back once the accounts have moved. Before the early commit, such a move sent the slice
 * its pass held uncommitted again (34), and a SIGKILL that and the pages read ahead (up to 37).
 */
import { contractHistoryStartMillis, contractMaxSpanMillis } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { FleetStatus } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { type RunnerProcess, scopedBills } from "./support/runnerProcess.js"
import { redisBudget } from "./support/redisBudget.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 6
const credentialsOf = (i: number) => ({ apiKey: `empty-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `empty-${i}`

/** The runners' budget for the address, in contract requests a second (`--ip-rps`). */
const ipRps = 4

/** What a scenario is given: to start a runner, to wait for a share of the slices, to act in a quiet moment. */
interface Scenario {
  readonly start: (name: string, port: 0 | 1) => Effect.Effect<RunnerProcess, never, Scope.Scope>
  readonly sent: (share: number) => Effect.Effect<void>
  /**
   * Runs `act` while the test holds the address budget's whole window, once the requests granted
   * before have landed and been committed; gives the budget back once `settled` holds.
   */
  readonly quiet: <A>(
    act: Effect.Effect<A, never, Scope.Scope>,
    settled: (a: A) => Effect.Effect<void>
  ) => Effect.Effect<A, never, Scope.Scope>
}

/**
 * Waits until `runner` has begun a pass (or, had it been given no account, until the cluster had
 * time to give it its shards), and the cluster's next rounds of assignments after it.
 */
const passing = (runner: RunnerProcess) =>
  Effect.zipRight(
    Effect.raceFirst(
      until(`a pass on runner ${runner.name}`, 60_000, () => runner.events.some((event) => event.event === "begins")),
      Effect.sleep("20 seconds")
    ),
    Effect.sleep("4 seconds")
  )

/**
 * Six accounts with no futures bill, their first syncs run by runners that `scenario` starts,
 * kills and restarts; when every futures account is walked to now: the slices to the opening, the
 * contract requests per account, and the runners each account's passes ran on, in order.
 */
const firstSync = (scenario: (given: Scenario) => Effect.Effect<ReadonlyArray<RunnerProcess>, never, Scope.Scope>) =>
  Effect.gen(function* () {
    const { db, exchange, database } = yield* seededFleet({
      accounts,
      labelOf,
      credentialsOf,
      perAddress: false,
      latency: { millis: 20 },
      exchangeOf: (i, now) => ({
        generate: { seed: 90 + i, funding: 10, spot: 10, startMillis: now - 86_400_000, endMillis: now - 60_000 }
      })
    })
    const slices = Math.ceil((Date.now() - contractHistoryStartMillis) / contractMaxSpanMillis)
    const ports = yield* freePorts(2)
    // A budget of 4 contract requests a second for the address: the walks take about a minute,
    // time to cut them; the interval is long, so every contract request is the first sync's.
    const started: Array<RunnerProcess> = []
    const start = (name: string, port: 0 | 1) =>
      scopedBills(
        name,
        [
          "run",
          "--db",
          db,
          "--port",
          String(ports[port]),
          "--interval",
          "10m",
          "--pages-per-pass",
          "5",
          "--redis",
          redisUrl ?? "",
          "--ip-rps",
          String(ipRps)
        ],
        { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
      ).pipe(Effect.tap((runner) => Effect.sync(() => void started.push(runner))))
    const contract = () => exchange.requests().filter((request) => request.operation === "contractBills")
    const total = accounts * slices
    const sent = (share: number) =>
      until(`${share} of the slices sent`, 120_000, () => contract().length >= share * total)
    // The test's own hand on the runners' budget: the same address and operation, in Redis.
    const budget = yield* redisBudget(redisUrl ?? "", { limit: ipRps })
    const quiet = <A>(act: Effect.Effect<A, never, Scope.Scope>, settled: (a: A) => Effect.Effect<void>) =>
      Effect.gen(function* () {
        const release = yield* Deferred.make<void>()
        let held = 0
        const holds = yield* Effect.forEach(Array.from({ length: ipRps }), () =>
          Effect.fork(
            budget.withGrant("contractBills")(
              Effect.zipRight(
                Effect.sync(() => void held++),
                Deferred.await(release)
              )
            )
          )
        )
        yield* until("the test holding the address budget", 60_000, () => held === ipRps)
        // A request granted before the test's last grant lands (20 ms away) and its page commits.
        yield* Effect.sleep("1 second")
        const acted = yield* act
        yield* settled(acted)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.joinAll(holds)
        return acted
      })
    const runners = yield* scenario({ start, sent, quiet }).pipe(
      Effect.tapDefect(() =>
        Effect.sync(() =>
          console.error(started.map((runner) => `${runner.name}: ${runner.stderr().slice(-2_000)}`).join("\n"))
        )
      )
    )
    const covered = FleetStatus.all.pipe(
      Effect.map((rows) => rows.filter((row) => row.contract.coveredTo !== null).length),
      Effect.provide(database),
      Effect.orDie
    )
    yield* until("every futures account walked to now", 150_000, () =>
      Effect.runPromise(covered).then((n) => n === accounts)
    ).pipe(
      Effect.tapDefect(() =>
        Effect.sync(() => console.error(runners.map((runner) => runner.stderr().slice(-1_500)).join("\n")))
      )
    )
    // Time for a request sent again by mistake (a pass begun again from its start) to show.
    yield* Effect.sleep("3 seconds")
    const perAccount = Array.from(
      { length: accounts },
      (_, i) => contract().filter((request) => request.key === credentialsOf(i).apiKey).length
    )
    const owners = Array.from({ length: accounts }, (_, i) =>
      runners
        .flatMap((runner) => runner.events)
        .filter((event) => event.account === labelOf(i) && event.event === "begins")
        .sort((x, y) => x.at - y.at)
        .map((event) => event.runner)
        .filter((runner, k, all) => k === 0 || all[k - 1] !== runner)
    )
    expect(exchange.requests().filter((request) => request.status === 429)).toEqual([])
    return { slices, perAccount, owners }
  })

/** Each slice sent once per account, however the account moved: `slices` requests each. */
const expectOncePerAccount = (
  slices: number,
  perAccount: ReadonlyArray<number>,
  owners: ReadonlyArray<ReadonlyArray<string>>
) => {
  for (const [i, sent] of perAccount.entries()) {
    expect(sent, `${labelOf(i)}: ${(owners[i] ?? []).join(">")}`).toBe(slices)
  }
}

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a fleet's first sync of futures accounts", () => {
  it.live(
    "a hand-over in the middle of the empty past's slices: each sent once",
    () =>
      Effect.gen(function* () {
        const { slices, perAccount, owners } = yield* firstSync(({ quiet, sent, start }) =>
          Effect.gen(function* () {
            const first = yield* start("a", 0)
            yield* sent(1 / 3)
            // Joins, and takes half the shards from the first, whose passes are walking.
            const second = yield* quiet(start("b", 1), passing)
            return [first, second]
          })
        )
        console.info(
          `futures first sync, hand-over: ${slices} slices to the opening; per account ${perAccount.join(", ")} requests; owners ${owners.map((chain) => chain.join(">")).join(", ")}`
        )
        expect(owners.filter((chain) => chain.join(">") === "a>b").length).toBeGreaterThan(0)
        expectOncePerAccount(slices, perAccount, owners)
      }).pipe(Effect.scoped),
    300_000
  )

  it.live(
    "a SIGKILL and a restart in the middle of them: each sent once",
    () =>
      Effect.gen(function* () {
        const { slices, perAccount, owners } = yield* firstSync(({ quiet, sent, start }) =>
          Effect.gen(function* () {
            const first = yield* start("a", 0)
            const second = yield* start("b", 1)
            yield* sent(1 / 3)
            yield* quiet(
              Effect.promise(() => {
                first.proc.kill("SIGKILL")
                return first.exited
              }),
              () => Effect.void
            )
            yield* sent(2 / 3)
            // Started again on its port: half the shards move back to it.
            const again = yield* quiet(start("a2", 0), passing)
            return [first, second, again]
          })
        )
        console.info(
          `futures first sync, SIGKILL: ${slices} slices to the opening; per account ${perAccount.join(", ")} requests; owners ${owners.map((chain) => chain.join(">")).join(", ")}`
        )
        expectOncePerAccount(slices, perAccount, owners)
        expect(owners.some((chain) => chain.slice(0, -1).includes("a"))).toBe(true)
      }).pipe(Effect.scoped),
    300_000
  )
})
