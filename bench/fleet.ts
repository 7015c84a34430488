/**
 * The fleet's figures (bench/run.ts section 9), with three `bills fleet run` processes on one
 * address sharing a Redis budget, against the loopback fleet exchange whose per-address limit
 * equals that budget: accounts per minute brought current, the share of the budget used while
 * they were, the failover time after a SIGKILL (the kill to the first pass of one of the dead
 * runner's accounts on another runner), and the requests of the pass that stores 1,000 new bills
 * of each kind in a steady fleet.
 * Needs the servers of .ci/postgres and .ci/redis; without them the section says so and skips.
 */
import { Effect, Layer, Redacted } from "effect"
import { FleetCipher, FleetDatabase, FleetStatus } from "../packages/fleet/src/index.js"
import * as FleetExchange from "../packages/fleet/test/support/FleetExchange.js"
import { freePorts } from "../packages/fleet/test/support/ports.js"
import { bills, type RunnerProcess } from "../packages/fleet/test/support/runnerProcess.js"
import { addAccounts, freshDatabase, testKey } from "../packages/fleet/test/support/services.js"

export interface FleetFigures {
  readonly accounts: number
  readonly billsPerAccount: number
  readonly accountsPerMinute: number
  /** Requests per second of the busiest operation over the middle 80 % of its requests, over the budget. */
  readonly budgetUsed: number
  /** The same over the busiest 10 s. */
  readonly budgetPeak: number
  readonly ipRps: number
  readonly failoverSeconds: number
  /**
   * Requests of the pass that stored 1,000 new bills of each kind, per kind, the most over the
   * accounts measured, as the runners' "pass ends" lines say; `seen`: the same counted by the
   * exchange between the pass's begin and end; `passes`: the most passes one account needed.
   */
  readonly incremental: {
    readonly funding: number
    readonly spot: number
    readonly accounts: number
    readonly passes: number
    readonly seen: { readonly funding: number; readonly spot: number }
  }
  /** Requests for account 0 after the SIGKILL: its resumed pass and its 1,000 new bills of each kind. */
  readonly failoverRequests: { readonly funding: number; readonly spot: number }
}

const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `acct-${String(i).padStart(3, "0")}`

const until = async (what: string, timeoutMs: number, predicate: () => Promise<boolean> | boolean) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await predicate()) return Date.now()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`fleet bench: timed out waiting for ${what}`)
}

/** Runs the fleet bench; undefined when PostgreSQL or Redis is not there. */
export const fleetBench = async (quick: boolean): Promise<FleetFigures | undefined> => {
  const pg = process.env.ACCOUNT_BILLS_PG_URL
  const redis = process.env.ACCOUNT_BILLS_REDIS_URL
  if (!pg || !redis) return undefined
  const accounts = quick ? 9 : 30
  const perKind = quick ? 300 : 600
  const ipRps = 10
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const db = yield* freshDatabase(pg)
        const now = Date.now()
        const exchange = yield* FleetExchange.serve({
          perAddress: { limit: ipRps, windowMillis: 1000 },
          accounts: Array.from({ length: accounts }, (_, i) => ({
            credentials: credentialsOf(i),
            generate: {
              seed: 7 + i,
              funding: perKind,
              spot: perKind,
              startMillis: now - 20 * day,
              endMillis: now - 60_000
            }
          }))
        })
        const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
        const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<typeof database>>) =>
          Effect.runPromise(Effect.provide(effect, database))
        yield* Effect.promise(() => run(addAccounts(accounts, labelOf, credentialsOf)))
        const env = { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
        const ports = yield* freePorts(3)
        const runners: ReadonlyArray<RunnerProcess> = yield* Effect.acquireRelease(
          Effect.sync(() =>
            [0, 1, 2].map((i) =>
              bills(
                `r${i}`,
                [
                  "run",
                  "--db",
                  db,
                  "--redis",
                  redis,
                  "--port",
                  String(ports[i]),
                  "--interval",
                  "3s",
                  "--ip-rps",
                  String(ipRps)
                ],
                env
              )
            )
          ),
          (all) =>
            Effect.promise(() => {
              for (const runner of all)
                if (runner.proc.exitCode === null && runner.proc.signalCode === null) runner.proc.kill("SIGKILL")
              return Promise.all(all.map((runner) => runner.exited))
            })
        )
        const current = async (wanted: (i: number) => { funding: number; spot: number }) => {
          const rows = await run(FleetStatus.all)
          return (
            rows.length === accounts &&
            rows.every(
              (row, i) =>
                row.funding.bills === wanted(i).funding &&
                row.spot.bills === wanted(i).spot &&
                row.funding.coveredTo !== null &&
                row.spot.coveredTo !== null
            )
          )
        }
        const held = (_: number) => ({ funding: perKind, spot: perKind })
        // Per account, the runner that began its latest pass: its owner, in a steady fleet.
        const owners = () => {
          const latest = new Map<string, { readonly runner: RunnerProcess; readonly at: number }>()
          for (const runner of runners) {
            for (const event of runner.events) {
              if (event.event === "begins" && (latest.get(event.account)?.at ?? 0) < event.at) {
                latest.set(event.account, { runner, at: event.at })
              }
            }
          }
          return latest
        }
        const done = yield* Effect.promise(() => until("every account current", 600_000, () => current(held)))
        const log = exchange.requests().filter((request) => request.operation !== undefined)
        const first = log[0]?.at ?? done
        const accountsPerMinute = (accounts / ((done - first) / 1000)) * 60
        const busiest =
          (["fundingBills", "spotBills"] as const)
            .map((operation) => log.filter((request) => request.operation === operation))
            .sort((a, b) => b.length - a.length)[0] ?? []
        // Over the middle 80 % of its requests: the ramp while runners join and the tail of the
        // last accounts, each bound by its own key's limit, are not the budget's to fill.
        const from = busiest[Math.floor(busiest.length * 0.1)]?.at ?? 0
        const to = busiest[Math.floor(busiest.length * 0.9)]?.at ?? 0
        const budgetUsed =
          (Math.floor(busiest.length * 0.9) - Math.floor(busiest.length * 0.1)) / ((to - from) / 1000) / ipRps
        // The busiest 10 s of that operation: the budget's use once the runners have settled.
        let peak = 0
        for (let first = 0, last = 0; last < busiest.length; last++) {
          while ((busiest[first]?.at ?? 0) <= (busiest[last]?.at ?? 0) - 10_000) first++
          peak = Math.max(peak, last - first + 1)
        }
        const budgetPeak = peak / 10 / ipRps
        if (log.some((request) => request.status === 429)) throw new Error("fleet bench: the exchange answered 429")

        // The fleet spreads once every runner has joined (the first to start may own every
        // account for a while): wait until the owners have stayed the same for two intervals.
        let signature = ""
        let since = Date.now()
        yield* Effect.promise(() =>
          until("the accounts spread over the runners", 120_000, () => {
            const now = [...owners()].map(([account, last]) => `${account}=${last.runner.name}`).join(" ")
            if (now !== signature) [signature, since] = [now, Date.now()]
            return new Set([...owners().values()].map((last) => last.runner)).size > 1 && Date.now() - since >= 6_000
          })
        )
        // The incremental pass, in the steady fleet: 1,000 new bills of each kind for up to 3
        // accounts the failover below leaves alone (not owned by account 0's runner), each given
        // right after one of its passes ended, so that the next pass (one interval later) finds
        // them all. They lie in the past (the last bills are a minute old): a walk reads up to
        // the time it starts, and the fake would place appended bills from now on.
        const owner0 = owners().get(labelOf(0))?.runner
        if (owner0 === undefined) throw new Error("fleet bench: no runner passed the first account")
        const measured = Array.from({ length: accounts }, (_, i) => i)
          .filter((i) => i !== 0 && owners().get(labelOf(i))?.runner !== owner0)
          .slice(0, 3)
        if (measured.length === 0) throw new Error("fleet bench: runner of account 0 owns every account")
        const appended = new Map<number, number>()
        yield* Effect.forEach(
          measured,
          (i) =>
            Effect.gen(function* () {
              const ends = () =>
                runners.flatMap((runner) => runner.events).filter((e) => e.account === labelOf(i) && e.event === "ends")
                  .length
              const before = ends()
              yield* Effect.promise(() => until(`a pass of ${labelOf(i)} ending`, 30_000, () => ends() > before))
              const account = exchange.exchanges.get(credentialsOf(i).apiKey)
              if (account === undefined) return yield* Effect.dieMessage("fleet bench: no exchange")
              const at = Date.now()
              const batch = { startMillis: at - 50_000, endMillis: at - 40_000 }
              yield* account.appendGenerated("funding", 1_000, batch)
              yield* account.appendGenerated("spot", 1_000, batch)
              appended.set(i, at)
            }),
          { concurrency: "unbounded", discard: true }
        )
        const grown = (i: number) =>
          measured.includes(i) ? { funding: perKind + 1_000, spot: perKind + 1_000 } : held(i)
        yield* Effect.promise(() => until("the 1,000 new bills stored", 120_000, () => current(grown)))
        // The passes that stored them: they should be one per account (20 pages per kind and pass
        // hold 1,000 bills); if an account needed more (a pass in flight at the append took some),
        // its figure is the sum over them, as every pass counts only its own requests.
        const passesOf = (i: number) =>
          runners.flatMap((runner) => {
            const mine = runner.events.filter((e) => e.account === labelOf(i))
            return mine.flatMap((end, index) => {
              const added = (end.funding?.added ?? 0) + (end.spot?.added ?? 0)
              if (end.event !== "ends" || end.at < (appended.get(i) ?? 0) || added === 0) return []
              const begin = mine
                .slice(0, index)
                .filter((e) => e.event === "begins")
                .at(-1)
              return [{ begin: begin?.at ?? end.at, end }]
            })
          })
        const perAccount = measured.map((i) => {
          const passes = passesOf(i)
          const key = credentialsOf(i).apiKey
          const seen = (operation: "fundingBills" | "spotBills") =>
            exchange
              .requests()
              .filter(
                (r) =>
                  r.key === key &&
                  r.operation === operation &&
                  passes.some((pass) => pass.begin <= r.at && r.at <= pass.end.at)
              ).length
          return {
            passes: passes.length,
            funding: passes.reduce((sum, pass) => sum + (pass.end.funding?.requests ?? 0), 0),
            spot: passes.reduce((sum, pass) => sum + (pass.end.spot?.requests ?? 0), 0),
            seen: { funding: seen("fundingBills"), spot: seen("spotBills") }
          }
        })
        const most = (of: (each: (typeof perAccount)[number]) => number) => Math.max(...perAccount.map(of))
        const incremental = {
          funding: most((each) => each.funding),
          spot: most((each) => each.spot),
          accounts: measured.length,
          passes: most((each) => each.passes),
          seen: { funding: most((each) => each.seen.funding), spot: most((each) => each.seen.spot) }
        }

        // Failover: SIGKILL the runner that passed account 0 last, give it 1,000 new bills of each
        // kind. Its accounts: those whose latest pass began on it.
        const latest = owners()
        const victim = latest.get(labelOf(0))?.runner
        if (victim === undefined) throw new Error("fleet bench: no runner passed the first account")
        const fake = exchange.exchanges.get(credentialsOf(0).apiKey)
        if (fake === undefined) throw new Error("fleet bench: no exchange")
        const orphans = new Set([...latest].filter(([, last]) => last.runner === victim).map(([account]) => account))
        victim.proc.kill("SIGKILL")
        const killedAt = Date.now()
        yield* fake.appendGenerated("funding", 1_000)
        yield* fake.appendGenerated("spot", 1_000)
        const mark = exchange.requests().length
        const pickedUp = yield* Effect.promise(() =>
          until("the dead runner's accounts picked up", 120_000, () =>
            [...orphans].every((label) =>
              runners.some(
                (runner) =>
                  runner !== victim &&
                  runner.events.some((e) => e.account === label && e.event === "begins" && e.at > killedAt)
              )
            )
          )
        )
        yield* Effect.promise(() =>
          until("the new bills stored", 120_000, () =>
            current((i) => (i === 0 ? { funding: perKind + 1_000, spot: perKind + 1_000 } : grown(i)))
          )
        )
        const after = exchange
          .requests()
          .slice(mark)
          .filter((request) => request.key === credentialsOf(0).apiKey)
        return {
          accounts,
          billsPerAccount: 2 * perKind,
          accountsPerMinute,
          budgetUsed,
          budgetPeak,
          ipRps,
          failoverSeconds: (pickedUp - killedAt) / 1000,
          incremental,
          failoverRequests: {
            funding: after.filter((request) => request.operation === "fundingBills").length,
            spot: after.filter((request) => request.operation === "spotBills").length
          }
        } satisfies FleetFigures
      })
    )
  )
}
