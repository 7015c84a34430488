/**
 * A fleet's first sync of many futures accounts (issue 52, section 4): nothing says where a
 * futures history starts, so the walk proves each 100 days back to the interface's opening empty,
 * one request each (33 in December 2026). Each committed page holds the walk's cursor, empty pages
 * included, and a pass cut at --pages-per-pass, or the account's next owner, resumes from it: an
 * account that stays on its runner sends each slice once. One that moves sends one slice again at
 * most per hand-over (a runner joins and takes its shard): `Sync.run` commits a page together with
 * what follows it (so that it knows the run's last page and lets the lease go with it), and a pass
 * ended while it waits for the next page's grant leaves the page it holds uncommitted, for the
 * next owner to ask again. A SIGKILL loses, besides, the request in flight and the pages read
 * ahead. A walk begun again from its start would send five or more again (a pass holds five pages
 * here), a lost cursor all of them.
 */
import { contractHistoryStartMillis, contractMaxSpanMillis } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { FleetStatus } from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { type RunnerProcess, scopedBills } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 6
const credentialsOf = (i: number) => ({ apiKey: `empty-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `empty-${i}`

/**
 * Six accounts with no futures bill, their first syncs run by runners that `scenario` starts,
 * kills and restarts (given the share of the slices sent so far to wait on); when every futures
 * account is walked to now: the slices to the opening, the contract requests per account, and the
 * runners each account's passes ran on, in order.
 */
const firstSync = (
  scenario: (
    start: (name: string, port: 0 | 1) => Effect.Effect<RunnerProcess, never, Scope.Scope>,
    sent: (share: number) => Effect.Effect<void>
  ) => Effect.Effect<ReadonlyArray<RunnerProcess>, never, Scope.Scope>
) =>
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
          "4"
        ],
        { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
      )
    const contract = () => exchange.requests().filter((request) => request.operation === "contractBills")
    const total = accounts * slices
    const sent = (share: number) =>
      until(`${share} of the slices sent`, 120_000, () => contract().length >= share * total)
    const runners = yield* scenario(start, sent)
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

/**
 * Each slice sent once per account, but at most one again each time the account moved (the page
 * its pass held uncommitted), and at most four each time it left the runner `killed` (that page,
 * the request in flight and the two pages read ahead, all lost with the process).
 */
const expectOncePerAccount = (
  slices: number,
  perAccount: ReadonlyArray<number>,
  owners: ReadonlyArray<ReadonlyArray<string>>,
  killed?: string
) => {
  for (const [i, sent] of perAccount.entries()) {
    const chain = owners[i] ?? []
    const moves = Math.max(0, chain.length - 1)
    const crashes = chain.filter((runner, k) => runner === killed && k < chain.length - 1).length
    expect(sent, labelOf(i)).toBeGreaterThanOrEqual(slices)
    expect(sent, `${labelOf(i)}: ${chain.join(">")}`).toBeLessThanOrEqual(slices + moves - crashes + 4 * crashes)
  }
}

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a fleet's first sync of futures accounts", () => {
  it.live(
    "a hand-over in the middle of the empty past's slices: each sent once, but one per move",
    () =>
      Effect.gen(function* () {
        const { slices, perAccount, owners } = yield* firstSync((start, sent) =>
          Effect.gen(function* () {
            const first = yield* start("a", 0)
            yield* sent(1 / 3)
            // Joins, and takes half the shards from the first, whose passes are walking.
            const second = yield* start("b", 1)
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
    "a SIGKILL and a restart in the middle of them: each sent once, but what the killed runner had not committed",
    () =>
      Effect.gen(function* () {
        const { slices, perAccount, owners } = yield* firstSync((start, sent) =>
          Effect.gen(function* () {
            const first = yield* start("a", 0)
            const second = yield* start("b", 1)
            yield* sent(1 / 3)
            first.proc.kill("SIGKILL")
            yield* Effect.promise(() => first.exited)
            yield* sent(2 / 3)
            // Started again on its port: half the shards move back to it.
            const again = yield* start("a2", 0)
            return [first, second, again]
          })
        )
        console.info(
          `futures first sync, SIGKILL: ${slices} slices to the opening; per account ${perAccount.join(", ")} requests; owners ${owners.map((chain) => chain.join(">")).join(", ")}`
        )
        expectOncePerAccount(slices, perAccount, owners, "a")
        expect(owners.some((chain) => chain.slice(0, -1).includes("a"))).toBe(true)
      }).pipe(Effect.scoped),
    300_000
  )
})
