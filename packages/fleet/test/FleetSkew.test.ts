/**
 * Time comes from one clock (issue 29 §5): three runner processes, one of them ten minutes
 * behind and one ten minutes ahead (Debian's libfaketime), the runner on the true clock
 * SIGKILLed. The accounts the skewed runners hold and take over are current within the usual
 * bound, and no two runners ever pass one account at once. Before runners read the database's
 * clock, the runner behind held shards and sent nothing: the cluster selects the passes due by
 * the polling runner's own clock, and every pass another runner stamped lay ten minutes in its
 * future. A runner ahead would see other runners' store leases run out ten minutes early.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { overlaps } from "./support/handOvers.js"
import { libfaketime, type RunnerProcess, scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, testKey } from "./support/services.js"

// Shards go to runners by a hash ring over their addresses (which vary with the test's pid), so
// with 9 accounts one of the two skewed runners held none in about one run in twenty; with 24,
// in about one in ten thousand.
const accounts = 24
const day = 86_400_000
const behind = { faketime: "-600s" }
const ahead = { faketime: "+600s" }
const credentialsOf = (i: number) => ({ apiKey: `skew-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `skew-${i}`

describe.skipIf(postgresUrl === undefined)("runners on skewed clocks", () => {
  it.live(
    "runners ten minutes behind and ahead bring the accounts they hold and take over current; no account passed twice at once",
    () =>
      Effect.gen(function* () {
        expect(libfaketime, "Debian's faketime package (apt-get install faketime)").toBeDefined()
        const { db, exchange, current } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 90 + i, funding: 30, spot: 40, startMillis: now - 3 * day, endMillis: now - 60_000 }
          })
        })
        const env = { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
        const ports = yield* freePorts(3)
        const runner = (name: string, i: number, skew?: typeof behind) =>
          scopedBills(name, ["run", "--db", db, "--port", String(ports[i]), "--interval", "2s"], env, { skew })
        // The skewed runners first, so that they hold shards from the start: on a quick machine
        // two runners alone would bring every account current before a third took any.
        const skewed = yield* runner("r2", 2, behind)
        const early = yield* runner("r1", 1, ahead)
        const killed = yield* runner("r0", 0)
        const all: ReadonlyArray<RunnerProcess> = [killed, early, skewed]

        const until = (what: string, millis: number) =>
          Effect.gen(function* () {
            const deadline = Date.now() + millis
            while (!(yield* current())) {
              if (Date.now() > deadline) {
                const log = all.map((each) => `--- ${each.name}\n${each.stderr().slice(-3_000)}`).join("\n")
                return yield* Effect.dieMessage(`accounts not current within ${millis / 1000} s (${what})\n${log}`)
              }
              yield* Effect.sleep("250 millis")
            }
            return Date.now() - (deadline - millis)
          })

        yield* until("first sync", 90_000)
        // Both skewed runners hold shards and pass accounts.
        const passed = (each: RunnerProcess) => each.events.some((event) => event.event === "ends")
        const deadline = Date.now() + 30_000
        while (!(passed(skewed) && passed(early)) && Date.now() < deadline) {
          yield* Effect.sleep("250 millis")
        }
        for (const each of [skewed, early]) expect(passed(each), each.stderr().slice(-2_000)).toBe(true)

        killed.proc.kill("SIGKILL")
        const cut = new Map([[killed.name, Date.now()]])
        yield* Effect.promise(() => killed.exited)
        for (let i = 0; i < accounts; i++) {
          const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
          if (fake === undefined) return yield* Effect.dieMessage("no exchange")
          yield* fake.appendGenerated("funding", 5)
          yield* fake.appendGenerated("spot", 5)
        }
        // The usual bound: a dead runner's shards are free within 30 s, then a pass at once.
        const took = yield* until("after the SIGKILL", 45_000)
        console.info(`skew test: every account current ${(took / 1000).toFixed(1)} s after the SIGKILL`)
        const afterKill = skewed.events.filter((event) => event.event === "begins" && event.at > (cut.get("r0") ?? 0))
        expect(afterKill.length).toBeGreaterThan(0)
        expect(overlaps([...killed.events, ...early.events, ...skewed.events], cut)).toEqual([])
        // Shards moved between runners: the cluster's lock operations met on one connection and
        // node-postgres warned of queued queries (issue 29 §7), no more.
        for (const each of all) expect(each.stderr(), each.name).not.toContain("DeprecationWarning")
      }).pipe(Effect.scoped),
    180_000
  )
})
