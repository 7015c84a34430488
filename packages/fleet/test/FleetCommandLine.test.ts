/**
 * What an operator meets at the fleet's command line, through the real `bills` program: failures
 * that name their cause (the driver's reason and the target, never a password), reads that write
 * nothing (a database without a fleet is named as such and left without a table), flags checked
 * as flags, `remove` that can be run twice, `status` exit codes a monitoring check reads, and
 * Ctrl-C that hands a runner's accounts over as SIGTERM does.
 */
import { spawn } from "node:child_process"
import * as net from "node:net"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetAccounts, FleetCipher, FleetDatabase } from "../src/index.js"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { billsToEnd, scopedBills } from "./support/runnerProcess.js"
import { freshDatabase, postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"
import { billsCommand } from "../../node/test/support/billsBin.js"

const run = billsToEnd

/** The tables of the database at `url`. */
const tablesOf = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.make({ url: Redacted.make(url) })
    const rows = yield* sql<{ readonly table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
    return rows.map((row) => row.table_name)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

const withPath = (url: string, path: string, user?: string) => {
  const target = new URL(url)
  target.pathname = path
  if (user !== undefined) target.username = user
  return target.toString()
}

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("the fleet's command line", () => {
  it.live(
    "a closed port, a missing database and an unknown user are named, without the password",
    () =>
      Effect.gen(function* () {
        const [closed] = yield* freePorts(1)
        const env = { PGPASSWORD: "hunter2-secret" }
        const refused = yield* run(["status", "--db", `postgres://bills@127.0.0.1:${closed}/fleet`], env)
        expect(refused.code).toBe(1)
        expect(refused.output).toMatch(/ECONNREFUSED/)
        expect(refused.output).toContain(`127.0.0.1:${closed}`)
        const missing = yield* run(["status", "--db", withPath(postgresUrl ?? "", "/no_such_fleet_db")], env)
        expect(missing.code).toBe(1)
        expect(missing.output).toContain('database "no_such_fleet_db" does not exist')
        const user = yield* run(["status", "--db", withPath(postgresUrl ?? "", "/postgres", "nobody_here")], env)
        expect(user.code).toBe(1)
        expect(user.output).toContain('"nobody_here"')
        for (const each of [refused, missing, user]) {
          expect(each.output).not.toContain("hunter2-secret")
          expect(each.output).not.toContain("Failed to connect\n")
          expect(each.output.trim().split("\n")).toHaveLength(1)
        }
      }),
    150_000
  )

  it.live(
    "status and remove on a database without a fleet say so and create nothing",
    () =>
      Effect.gen(function* () {
        const db = yield* freshDatabase(postgresUrl ?? "")
        for (const args of [
          ["status", "--db", db],
          ["remove", "--db", db, "--label", "x"]
        ]) {
          const answer = yield* run(args)
          expect(answer.code, args[0]).toBe(1)
          expect(answer.output).toContain("holds no fleet (it has no fleet_accounts table)")
        }
        expect(yield* tablesOf(db)).toEqual([])
      }),
    150_000
  )

  it.live(
    "flags checked as flags: ports in range, a port in use named, --redis with --ip-rps and a Redis URL",
    () =>
      Effect.gen(function* () {
        const db = yield* freshDatabase(postgresUrl ?? "")
        const env = { BILLS_FLEET_KEY: testKey }
        const port = yield* run(["run", "--db", db, "--port", "99999"], env)
        expect(port.code).toBe(2)
        expect(port.output).toContain("--port must be a port, 1 to 65535, got 99999")
        const redisAlone = yield* run(["run", "--db", db, "--redis", redisUrl ?? ""], env)
        expect(redisAlone.code).toBe(2)
        expect(redisAlone.output).toContain("--redis holds the budget of --ip-rps")
        const notUrl = yield* run(["run", "--db", db, "--redis", "notaurl", "--ip-rps", "5"], env)
        expect(notUrl.code).toBe(2)
        expect(notUrl.output).toContain("--redis wants a Redis URL")
        // A port another process listens on is the runner's port, not the database.
        const [taken = 0] = yield* freePorts(1)
        const server = yield* Effect.acquireRelease(
          Effect.promise(
            () =>
              new Promise<net.Server>((resolve) => {
                const listening = net.createServer().listen(taken, "127.0.0.1", () => resolve(listening))
              })
          ),
          (server) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
        )
        expect(server.listening).toBe(true)
        const inUse = yield* run(["run", "--db", db, "--port", String(taken)], env)
        expect(inUse.code).toBe(1)
        expect(inUse.output).toContain(`the runner cannot listen on 127.0.0.1:${taken} (--port)`)
        expect(inUse.output).toContain("EADDRINUSE")
        expect(inUse.output).not.toContain("fleet database")
      }).pipe(Effect.scoped),
    150_000
  )

  it.live(
    "remove twice: a note and exit 0; status exits 3 with a failing account, 4 behind past --max-lag",
    () =>
      Effect.gen(function* () {
        const db = yield* freshDatabase(postgresUrl ?? "")
        const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
        const credentials = {
          apiKey: Redacted.make("k"),
          secret: Redacted.make("s"),
          passphrase: Redacted.make("p")
        }
        yield* Effect.flatMap(FleetAccounts, (accounts) =>
          Effect.zipRight(accounts.add("one", credentials), accounts.add("two", credentials))
        ).pipe(Effect.provide(database))

        const first = yield* run(["remove", "--db", db, "--label", "two"])
        expect(first).toMatchObject({ code: 0 })
        expect(first.output).toContain("removed two")
        const again = yield* run(["remove", "--db", db, "--label", "two"])
        expect(again.code).toBe(0)
        expect(again.output).toContain('note: the fleet has no account labelled "two"')

        // Added a moment ago and never synced: behind by that moment.
        yield* Effect.sleep("1500 millis")
        expect((yield* run(["status", "--db", db])).code).toBe(0)
        expect((yield* run(["status", "--db", db, "--max-lag", "1h"])).code).toBe(0)
        const behind = yield* run(["status", "--db", db, "--max-lag", "1s"])
        expect(behind.code).toBe(4)
        expect(behind.output).toContain("1 of 1 accounts behind by more than")
        const badLag = yield* run(["status", "--db", db, "--max-lag", "soon"])
        expect(badLag.code).toBe(2)

        yield* Effect.flatMap(FleetAccounts, (accounts) =>
          accounts.record("one", { funding: "BillsApiError: Authentication" }, true)
        ).pipe(Effect.provide(database))
        const failing = yield* run(["status", "--db", db, "--max-lag", "1s"])
        expect(failing.code).toBe(3)
        expect(failing.output).toContain("1 of 1 accounts failing: one")
        expect((yield* run(["status", "--db", db, "--json"])).code).toBe(3)
      }),
    150_000
  )

  it.live(
    "Ctrl-C (SIGINT) hands the runner's accounts over and exits 0, as SIGTERM does",
    () =>
      Effect.gen(function* () {
        const { db, exchange } = yield* seededFleet({
          accounts: 2,
          labelOf: (i) => `int-${i}`,
          credentialsOf: (i) => ({ apiKey: `int-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` }),
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 40 + i, funding: 50, spot: 50, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        const [port = 0] = yield* freePorts(1)
        const runner = yield* scopedBills("int", ["run", "--db", db, "--port", String(port), "--interval", "1s"], {
          BILLS_FLEET_KEY: testKey,
          WEEX_BASE_URL: exchange.url
        })
        yield* until("passes", 60_000, () => runner.events.filter((event) => event.event === "ends").length >= 2)
        const sent = Date.now()
        runner.proc.kill("SIGINT")
        const code = yield* Effect.promise(() => runner.exited)
        const took = Date.now() - sent
        console.info(`SIGINT: exited ${code} after ${took} ms`)
        expect(code).toBe(0)
        expect(runner.stderr()).toContain("runner handed its accounts over")
        expect(took).toBeLessThan(3_500)
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "--log-level in every position, --log-format json, passes that find nothing only at DEBUG",
    () =>
      Effect.gen(function* () {
        const { db, exchange, current } = yield* seededFleet({
          accounts: 2,
          labelOf: (i) => `log-${i}`,
          credentialsOf: (i) => ({ apiKey: `log-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` }),
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 20 + i, funding: 30, spot: 30, startMillis: now - 86_400_000, endMillis: now - 60_000 }
          })
        })
        // Before `fleet`, after it, after the subcommand.
        const before = yield* Effect.promise(async () => {
          const proc = spawn(process.execPath, [
            ...billsCommand(),
            "--log-level",
            "debug",
            "fleet",
            "status",
            "--db",
            db
          ])
          return await new Promise<number | null>((resolve) => proc.on("exit", resolve))
        })
        expect(before).toBe(0)
        expect((yield* run(["--log-level", "debug", "status", "--db", db])).code).toBe(0)
        expect((yield* run(["status", "--db", db, "--log-level=warning"])).code).toBe(0)
        expect((yield* run(["status", "--db", db, "--log-format", "xml"])).code).toBe(2)

        const [port = 0] = yield* freePorts(1)
        const runner = yield* scopedBills(
          "json",
          [
            "run",
            "--db",
            db,
            "--port",
            String(port),
            "--interval",
            "1s",
            "--log-level",
            "info",
            "--log-format",
            "json"
          ],
          { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
        )
        yield* until("both accounts current", 60_000, () => Effect.runPromise(current(true)))
        // Passes of current accounts for a few seconds more: they find nothing.
        yield* Effect.sleep("4 seconds")
        runner.proc.kill("SIGTERM")
        yield* Effect.promise(() => runner.exited)
        const lines = runner
          .stderr()
          .split("\n")
          .filter((line) => line.trim() !== "")
        const parsed = lines.map(
          (line) => JSON.parse(line) as { readonly message?: unknown; readonly logLevel?: unknown }
        )
        expect(parsed.length).toBeGreaterThan(0)
        const messages = parsed.map((line) => String(line.message))
        expect(messages).not.toContain("pass begins")
        // Only the passes that stored bills say so at INFO: the first pass or two of each account.
        const ends = messages.filter((message) => message === "pass ends").length
        expect(ends).toBeGreaterThan(0)
        expect(ends).toBeLessThanOrEqual(4)
        expect(messages.some((message) => message.includes("joins the fleet"))).toBe(true)
      }).pipe(Effect.scoped),
    150_000
  )
})
