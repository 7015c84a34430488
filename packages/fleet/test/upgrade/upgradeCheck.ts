/**
 * The upgrade check (issue 52, section 3; `.ci/upgrade-check` builds the old releases and runs
 * this): runners of two builds on one throwaway PostgreSQL and Redis, accounts passing while the
 * fleet is upgraded one runner at a time, against the loopback fleet exchange. Three steps:
 *
 * - `last`: the last release (`.ci/last-release`, the same schema) beside this tree: both keep
 *   every account current; the old runner is stopped (SIGTERM) and hands its accounts over.
 * - `older`: a release whose store is one version older: this tree's runner migrates the store
 *   while the old runner runs (it goes on: its migration adds indexes only), and the old runner,
 *   started again, refuses the store in one line that names both versions, joining nothing.
 * - `next`: this tree beside the next release, this tree's sources with one migration more: this
 *   tree's runner finds the store newer at its next look, says so in one line, hands its
 *   accounts over and exits 1; the next release's runner carries on.
 *
 * Each prints its figures: per account the bills the exchange holds and the store holds, none
 * missing and none twice (field for field), the requests by kind, the 429s, and which runner held
 * the account when. Exits 1 on any failure. Run with the servers of .ci/postgres and .ci/redis:
 * `UPGRADE_LAST_BILLS=<bills.js> UPGRADE_OLDER_BILLS=<bills.js> tsx
 * --conditions=@account-bills/source packages/fleet/test/upgrade/upgradeCheck.ts`.
 */
import * as fs from "node:fs"
import type * as esbuild from "esbuild"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { contractHistoryStartMillis, contractMaxSpanMillis } from "@account-bills/core"
import { StoreVersion } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { bundleBills } from "../../../node/test/support/billsBin.js"
import * as FleetExchange from "../support/FleetExchange.js"
import { freePorts } from "../support/ports.js"
import { bills, type RunnerProcess } from "../support/runnerProcess.js"
import { freshDatabase, testKey } from "../support/services.js"

const accounts = 4
const ipRps = 20
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `up-key-${i}`, secret: `up-secret-${i}`, passphrase: `up-pass-${i}` })
const labelOf = (i: number) => `up-${i}`
const labels = Array.from({ length: accounts }, (_, i) => labelOf(i))

const failures: Array<string> = []
const fail = (step: string, what: string) => {
  failures.push(`${step}: ${what}`)
  console.log(`upgrade-check: ${step}: FAILED: ${what}`)
}

/** Polls `predicate` every 200 ms; false once `timeoutMs` have passed. */
const until = (timeoutMs: number, predicate: () => Promise<boolean> | boolean): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (
        await Promise.resolve()
          .then(predicate)
          .catch(() => false)
      )
        return true
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return false
  })

/**
 * The next release, as far as the store can tell: this tree's sources with one migration
 * appended (a table no runner reads), bundled as the tests bundle `bills`.
 */
const nextMigration: esbuild.Plugin = {
  name: "next-release-migration",
  setup(build) {
    build.onLoad({ filter: /store[\\/]src[\\/]internal[\\/]migrations\.ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, "utf8")
      const version = /export const schemaVersion = (\d+)/.exec(source)
      const last = /\n} as const/.exec(source)
      if (version === null || last === null) throw new Error(`upgrade-check: cannot add a migration to ${args.path}`)
      const next = Number(version[1]) + 1
      const migration = `,\n  "${next}_next_release": Effect.flatMap(SqlClient.SqlClient, (sql) => sql\`CREATE TABLE ab_next_release (id INTEGER)\`)`
      const contents = source
        .replace(/\n} as const/, `${migration}\n} as const`)
        .replace(/export const schemaVersion = \d+/, `export const schemaVersion = ${next}`)
      return { contents, loader: "ts" }
    })
  }
}

/** A build of `bills`: its name in the figures and its entry. */
interface Build {
  readonly name: string
  readonly entry: string
}

/** What one step of the check is given. */
interface Step {
  readonly name: string
  readonly db: string
  readonly exchange: FleetExchange.FleetExchangeService
  readonly runners: Array<RunnerProcess>
  /** `bills fleet run` of `build` on cluster port `port` (0 or 1), killed at the step's end if still running. */
  readonly start: (build: Build, name: string, port: 0 | 1) => Effect.Effect<RunnerProcess, never, Scope.Scope>
  /** Until `runner` has ended a pass of every account (false on a timeout). */
  readonly passedAll: (runner: RunnerProcess, timeoutMs?: number) => Effect.Effect<boolean>
  /** Until `runner` has ended a pass of some account (false on a timeout). */
  readonly passedSome: (runner: RunnerProcess, timeoutMs?: number) => Effect.Effect<boolean>
  /** The store's schema version. */
  readonly version: Effect.Effect<number>
}

const pgUrl = process.env.ACCOUNT_BILLS_PG_URL ?? ""
const redisUrl = process.env.ACCOUNT_BILLS_REDIS_URL ?? ""

/** A SQL client of `db` for one question. */
const query = <A>(db: string, ask: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>): Effect.Effect<A> =>
  Effect.gen(function* () {
    const sql = yield* PgClient.make({ url: Redacted.make(db) })
    return yield* ask(sql)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

interface StoredRow {
  readonly account: string
  readonly kind: string
  readonly raw: string
}

/**
 * The step's figures and verdict: per account, what the exchange and the store hold, the requests
 * by kind, and the runners that held it; the 429s.
 */
const figures = (step: Step) =>
  Effect.gen(function* () {
    // Read by plain SQL: the store may be newer than this tree (the `next` step).
    const rows = yield* query(
      db(step),
      (sql) =>
        sql<StoredRow>`SELECT account, kind, raw FROM ab_bills UNION ALL SELECT account, 'contract' AS kind, raw FROM ab_contract_bills`
    )
    const covered = yield* query(
      db(step),
      (sql) =>
        sql<{
          readonly account: string
          readonly kind: string
          readonly covered_to: string | null
        }>`SELECT account, kind, covered_to FROM ab_sync`
    )
    const requests = step.exchange.requests()
    const limited = requests.filter((request) => request.status === 429).length
    let ok = true
    const lines: Array<string> = []
    for (const [i, label] of labels.entries()) {
      const fake = step.exchange.exchanges.get(credentialsOf(i).apiKey)
      if (fake === undefined) return yield* Effect.dieMessage(`no exchange for ${label}`)
      const cells: Array<string> = []
      for (const kind of ["funding", "spot", "contract"] as const) {
        const wire =
          kind === "contract" ? yield* fake.contractBills : yield* fake.bills(kind === "funding" ? "funding" : "spot")
        const want = new Map<string, number>()
        for (const bill of wire) {
          const key = JSON.stringify(bill)
          want.set(key, (want.get(key) ?? 0) + 1)
        }
        const stored = rows.filter((row) => row.account === label && row.kind === kind)
        let twice = 0
        let extra = 0
        const seen = new Map<string, number>()
        for (const row of stored) {
          // The store keeps the exchange's object as sent; compared field for field, in its order.
          const key = JSON.stringify(JSON.parse(row.raw))
          const count = (seen.get(key) ?? 0) + 1
          seen.set(key, count)
          if (!want.has(key)) extra++
          else if (count > (want.get(key) ?? 0)) twice++
        }
        const missing = [...want.entries()].reduce((sum, [key, n]) => sum + Math.max(0, n - (seen.get(key) ?? 0)), 0)
        const current = covered.some((row) => row.account === label && row.kind === kind && row.covered_to !== null)
        const sent = requests.filter(
          (request) => request.key === credentialsOf(i).apiKey && request.operation === `${kind}Bills`
        ).length
        cells.push(
          `${kind} ${stored.length}/${wire.length} bills, ${missing} lost, ${twice} twice, ${extra} not at the exchange, ${sent} requests${current ? "" : ", NOT COVERED"}`
        )
        if (missing + twice + extra > 0 || !current) ok = false
      }
      const owners = step.runners
        .flatMap((runner) => runner.events)
        .filter((event) => event.account === label && event.event === "begins")
        .sort((x, y) => x.at - y.at)
        .map((event) => event.runner)
        .filter((runner, k, all) => k === 0 || all[k - 1] !== runner)
      lines.push(`  ${label}: ${cells.join("; ")}; held by ${owners.join(" > ")}`)
    }
    const slices = Math.ceil((Date.now() - contractHistoryStartMillis) / contractMaxSpanMillis)
    console.log(
      `upgrade-check: ${step.name}: store schema version ${yield* step.version}; a futures account's requests are its first walk's ${slices} slices of an empty past, then one a pass`
    )
    for (const line of lines) console.log(`upgrade-check: ${step.name}:${line}`)
    console.log(`upgrade-check: ${step.name}: ${requests.length} requests, ${limited} answered 429`)
    if (!ok) fail(step.name, "an account's store is not its exchange's bills, each once, covered to now")
    if (limited > 0) fail(step.name, `${limited} requests answered 429`)
  })

const db = (step: Step) => step.db

/**
 * A step on a fresh database and exchange: `accounts` accounts with a day of funding and spot
 * bills and an empty futures history, added by `adder`'s `bills fleet add`; new bills arrive at
 * the exchange every second while `body` runs, then the check waits for every account to be current.
 */
const step = (
  name: string,
  adder: Build,
  body: (step: Step) => Effect.Effect<void, never, Scope.Scope>
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const began = Date.now()
    console.log(`upgrade-check: ${name}: begins`)
    const database = yield* freshDatabase(pgUrl)
    const now = Date.now()
    const exchange = yield* FleetExchange.serve({
      perAddress: { limit: ipRps, windowMillis: 1_000 },
      latency: { millis: 5 },
      accounts: Array.from({ length: accounts }, (_, i) => ({
        credentials: credentialsOf(i),
        generate: { seed: 520 + i, funding: 250, spot: 250, startMillis: now - day, endMillis: now - 60_000 }
      }))
    })
    const ports = yield* freePorts(2)
    const runners: Array<RunnerProcess> = []
    const env = { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
    const start = (build: Build, runnerName: string, port: 0 | 1) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const runner = bills(
            runnerName,
            [
              "run",
              "--db",
              database,
              "--port",
              String(ports[port]),
              "--interval",
              "2s",
              "--pages-per-pass",
              "5",
              "--redis",
              redisUrl,
              "--ip-rps",
              String(ipRps)
            ],
            env,
            { entry: build.entry }
          )
          runners.push(runner)
          return runner
        }),
        (runner) =>
          Effect.promise(() => {
            if (runner.proc.exitCode === null && runner.proc.signalCode === null) runner.proc.kill("SIGKILL")
            return runner.exited
          })
      )
    const passedAll = (runner: RunnerProcess, timeoutMs = 90_000) =>
      until(timeoutMs, () =>
        labels.every((label) => runner.events.some((event) => event.account === label && event.event === "ends"))
      )
    const passedSome = (runner: RunnerProcess, timeoutMs = 60_000) =>
      until(timeoutMs, () => runner.events.some((event) => event.event === "ends"))
    const version = query(
      database,
      (sql) => sql<{ readonly n: number | null }>`SELECT MAX(migration_id) AS n FROM account_bills_migrations`
    ).pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)))
    const current: Step = { name, db: database, exchange, runners, start, passedAll, passedSome, version }
    // The operator's fleet, made by the build it began with.
    for (const [i, label] of labels.entries()) {
      const added = yield* Effect.promise(async () => {
        const proc = bills(
          `${adder.name} add`,
          ["add", "--db", database, "--label", label],
          {
            ...env,
            WEEX_API_KEY: credentialsOf(i).apiKey,
            WEEX_API_SECRET: credentialsOf(i).secret,
            WEEX_API_PASSPHRASE: credentialsOf(i).passphrase
          },
          { entry: adder.entry }
        )
        return { code: await proc.exited, output: proc.stderr() }
      })
      if (added.code !== 0) return fail(name, `bills fleet add ${label} exited ${added.code}: ${added.output.trim()}`)
    }
    // Accounts passing: a few new bills of each kind every second while the runners change.
    let arriving = true
    const arrivals = Effect.promise(async () => {
      while (arriving) {
        for (const fake of exchange.exchanges.values()) {
          await Effect.runPromise(Effect.zipRight(fake.appendGenerated("funding", 3), fake.appendGenerated("spot", 3)))
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000))
      }
    })
    const arriver = yield* Effect.fork(arrivals)
    yield* body(current)
    arriving = false
    yield* Fiber.join(arriver)
    // Every account current: its store holds what its exchange holds, futures walked to now.
    const settled = yield* until(90_000, () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const counts = yield* query(
            database,
            (sql) =>
              sql<{
                readonly account: string
                readonly kind: string
                readonly n: string
              }>`SELECT account, kind, COUNT(*) AS n FROM ab_bills GROUP BY account, kind`
          )
          const contract = yield* query(
            database,
            (sql) =>
              sql<{
                readonly n: string
              }>`SELECT COUNT(*) AS n FROM ab_sync WHERE kind = 'contract' AND covered_to IS NOT NULL`
          )
          if (Number(contract[0]?.n ?? 0) < accounts) return false
          for (const [i, label] of labels.entries()) {
            const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
            if (fake === undefined) return false
            for (const kind of ["funding", "spot"] as const) {
              const held = Number(counts.find((row) => row.account === label && row.kind === kind)?.n ?? 0)
              if (held !== (yield* fake.bills(kind)).length) return false
            }
          }
          return true
        })
      )
    )
    if (!settled) fail(name, "the accounts were not current within 90 s of the last change")
    // Time for a request sent again by mistake to show in the figures.
    yield* Effect.sleep("2 seconds")
    yield* figures(current)
    for (const runner of runners) {
      const stops = runner
        .stderr()
        .split("\n")
        .filter((line) => /schema version|handed|told to stop/.test(line) && !/level=DEBUG/.test(line))
      for (const line of stops) console.log(`upgrade-check: ${name}: ${runner.name} said: ${line.trim()}`)
    }
    console.log(`upgrade-check: ${name}: done in ${((Date.now() - began) / 1_000).toFixed(1)} s`)
  }).pipe(Effect.scoped)

/** Until `runner` exits: its code, or undefined on a timeout. */
const exitOf = (runner: RunnerProcess, timeoutMs: number) =>
  Effect.promise(() =>
    Promise.race([
      runner.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref())
    ])
  )

const main = Effect.gen(function* () {
  const lastEntry = process.env.UPGRADE_LAST_BILLS
  const olderEntry = process.env.UPGRADE_OLDER_BILLS
  if (pgUrl === "" || redisUrl === "" || lastEntry === undefined || olderEntry === undefined) {
    console.log(
      "upgrade-check: needs ACCOUNT_BILLS_PG_URL, ACCOUNT_BILLS_REDIS_URL (.ci/postgres, .ci/redis), UPGRADE_LAST_BILLS and UPGRADE_OLDER_BILLS (.ci/upgrade-check)"
    )
    return 1
  }
  const began = Date.now()
  const thisBundle = yield* Effect.acquireRelease(
    Effect.promise(() => bundleBills()),
    (bundle) => Effect.sync(bundle.remove)
  )
  const nextBundle = yield* Effect.acquireRelease(
    Effect.promise(() => bundleBills([nextMigration])),
    (bundle) => Effect.sync(bundle.remove)
  )
  const last: Build = { name: `last release (${process.env.UPGRADE_LAST_SHA ?? "?"})`, entry: lastEntry }
  const older: Build = { name: `older release (${process.env.UPGRADE_OLDER_SHA ?? "?"})`, entry: olderEntry }
  const current: Build = { name: "this tree", entry: thisBundle.entry }
  const next: Build = { name: "next release (this tree and one migration)", entry: nextBundle.entry }
  console.log(`upgrade-check: builds: ${last.name}, ${older.name}, ${current.name}, ${next.name}`)

  // The last release beside this tree: both keep every account current; the old one hands over.
  yield* step("last", last, (s) =>
    Effect.gen(function* () {
      const old = yield* s.start(last, "old", 0)
      if (!(yield* s.passedAll(old))) return fail(s.name, "the last release's runner did not pass every account")
      // This tree joins: it takes about half the shards, and the accounts on them.
      const fresh = yield* s.start(current, "new", 1)
      if (!(yield* s.passedSome(fresh))) fail(s.name, "this tree's runner passed no account beside the old one")
      const passes = old.events.filter((event) => event.event === "ends").length
      if (!(yield* until(30_000, () => old.events.filter((event) => event.event === "ends").length > passes))) {
        fail(s.name, "the last release's runner stopped passing beside this tree's")
      }
      // The upgrade of the old runner: stopped (its accounts move to this tree's), then started
      // again as this tree.
      old.proc.kill("SIGTERM")
      const code = yield* exitOf(old, 30_000)
      if (code !== 0) fail(s.name, `the last release's runner, stopped, exited ${code}`)
      if (!(yield* s.passedAll(fresh))) fail(s.name, "this tree's runner did not take every account over")
      yield* s.start(current, "new2", 0)
      yield* Effect.sleep("4 seconds")
    })
  )

  // A release whose store is one version older: this tree migrates the store while it runs.
  yield* step("older", older, (s) =>
    Effect.gen(function* () {
      const old = yield* s.start(older, "older", 0)
      if (!(yield* s.passedAll(old))) return fail(s.name, "the older release's runner did not pass every account")
      const before = yield* s.version
      const fresh = yield* s.start(current, "new", 1)
      if (!(yield* s.passedSome(fresh))) fail(s.name, "this tree's runner passed no account beside the old one")
      const after = yield* s.version
      console.log(`upgrade-check: ${s.name}: this tree's runner migrated the store from version ${before} to ${after}`)
      if (!(after > before)) fail(s.name, `the store stayed at version ${after}`)
      // The older runner knows no later version and looks at it only when it starts: it goes on.
      const passes = old.events.filter((event) => event.event === "ends").length
      if (
        !(yield* until(30_000, () => old.events.filter((event) => event.event === "ends").length > passes + accounts))
      ) {
        fail(s.name, "the older release's runner stopped passing on the migrated store")
      }
      old.proc.kill("SIGTERM")
      const code = yield* exitOf(old, 30_000)
      if (code !== 0) fail(s.name, `the older release's runner, stopped, exited ${code}`)
      if (!(yield* s.passedAll(fresh))) fail(s.name, "this tree's runner did not take every account over")
      // Started again, it refuses the store in one line, before it joins.
      const again = yield* s.start(older, "older-again", 0)
      const againCode = yield* exitOf(again, 30_000)
      const refusal = again.stderr().trim()
      console.log(`upgrade-check: ${s.name}: the older release's runner started again: exit ${againCode}: ${refusal}`)
      if (againCode === 0 || againCode === undefined)
        fail(s.name, `the older release's runner started again exited ${againCode}`)
      if (!new RegExp(`schema version ${after}, newer than the ${before}`).test(refusal)) {
        fail(s.name, "the older release's runner started on the migrated store did not refuse it naming both versions")
      }
      if (again.events.length > 0) fail(s.name, "the older release's runner passed an account on a store it refused")
    })
  )

  // This tree beside the next release: this tree's runner stops, hands over, exits 1.
  yield* step("next", current, (s) =>
    Effect.gen(function* () {
      const old = yield* s.start(current, "this", 0)
      if (!(yield* s.passedAll(old))) return fail(s.name, "this tree's runner did not pass every account")
      const fresh = yield* s.start(next, "next", 1)
      const migrated = yield* until(60_000, () =>
        Effect.runPromise(Effect.map(s.version, (n) => n > StoreVersion.known))
      )
      if (!migrated) return fail(s.name, "the next release's runner did not migrate the store")
      const migratedAt = Date.now()
      const code = yield* exitOf(old, 45_000)
      const line = old
        .stderr()
        .split("\n")
        .find((each) => /stops: the store has schema version/.test(each))
      console.log(
        `upgrade-check: ${s.name}: this tree's runner exited ${code} ${((Date.now() - migratedAt) / 1_000).toFixed(1)} s after the migration`
      )
      if (code !== 1) fail(s.name, `this tree's runner on a newer store exited ${code}, not 1`)
      const versions = `schema version ${StoreVersion.known + 1}, newer than the ${StoreVersion.known}`
      if (line === undefined || !line.includes(versions)) {
        fail(s.name, "this tree's runner did not say which version it found and which it knows")
      }
      const lastPass = Math.max(0, ...old.events.map((event) => event.at))
      console.log(
        `upgrade-check: ${s.name}: this tree's last pass event ${((lastPass - migratedAt) / 1_000).toFixed(1)} s after the migration`
      )
      if (!(yield* s.passedAll(fresh))) fail(s.name, "the next release's runner did not carry every account on")
      const after = fresh.events.filter((event) => event.event === "ends").length
      if (!(yield* until(20_000, () => fresh.events.filter((event) => event.event === "ends").length > after))) {
        fail(s.name, "the next release's runner stopped passing")
      }
    })
  )
  console.log(
    `upgrade-check: ${failures.length === 0 ? "passed" : `FAILED (${failures.length})`} in ${((Date.now() - began) / 1_000).toFixed(0)} s`
  )
  for (const failure of failures) console.log(`upgrade-check: FAILED: ${failure}`)
  return failures.length === 0 ? 0 : 1
})

Effect.runPromise(Effect.scoped(main)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`upgrade-check: ${String(error)}`)
    process.exit(1)
  }
)
