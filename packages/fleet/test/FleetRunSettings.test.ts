/**
 * `bills fleet run` reads and checks every setting it cannot work without before it joins the
 * fleet (issue 52, section 2): the key, the previous key, the database, the Redis of the address
 * budget, the budget itself, and the addresses it listens on. Each refusal, through the real
 * `bills` program, is one line that names the variable or flag and what to do, exits non-zero,
 * and leaves the fleet as it was: no "joins the fleet", no cluster table made in its database (a
 * runner that joins makes them), no request at the exchange. Last, the same command with every
 * setting right does join and sync: what the refusals lack, a runner that works has.
 */
import * as net from "node:net"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { freePorts } from "./support/ports.js"
import { billsToEnd, scopedBills } from "./support/runnerProcess.js"
import { type SeededFleet, seededFleet } from "./support/seededFleet.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

/** The tables of the database at `url`, sorted. */
const tablesOf = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.make({ url: Redacted.make(url) })
    const rows = yield* sql<{ readonly table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
    return rows.map((row) => row.table_name).sort()
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

/** A fleet of one account that a runner would sync at once, if it joined. */
const fleet = () =>
  seededFleet({
    accounts: 1,
    labelOf: () => "settings",
    credentialsOf: () => ({ apiKey: "settings-key", secret: "settings-secret", passphrase: "settings-pass" }),
    perAddress: false,
    exchangeOf: (_, now) => ({
      generate: { seed: 52, funding: 10, spot: 10, startMillis: now - 86_400_000, endMillis: now - 60_000 }
    })
  })

/** A server listening on `port` of `host` for the lifetime of the scope: the port is taken. */
const taken = (port: number, host = "127.0.0.1"): Effect.Effect<net.Server, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<net.Server>((resolve) => {
          const server = net.createServer().listen(port, host, () => resolve(server))
        })
    ),
    (server) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
  )

interface Refusal {
  /** Arguments after `run --db <db> --port <port> --interval 1s`. */
  readonly args?: ReadonlyArray<string>
  /** The environment on top of the key and the exchange's URL; `undefined` unsets. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** The database in place of the fleet's. */
  readonly db?: string
  readonly code: number
  /** The one line, whole or its beginning. */
  readonly line: RegExp
}

/** `bills fleet run` refused: `expected`'s code, one line, and nothing joined, made or sent. */
const refused = (seeded: SeededFleet, port: number, expected: Refusal) =>
  Effect.gen(function* () {
    const before = yield* tablesOf(seeded.db)
    const env: Record<string, string> = { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: seeded.exchange.url }
    for (const [name, value] of Object.entries(expected.env ?? {})) {
      if (value === undefined) delete env[name]
      else env[name] = value
    }
    // Unset in this process too: `billsToEnd` passes the rest of its environment on.
    const unset = Object.entries(expected.env ?? {}).filter(([, value]) => value === undefined)
    for (const [name] of unset) expect(process.env[name], name).toBeUndefined()
    const answer = yield* billsToEnd(
      ["run", "--db", expected.db ?? seeded.db, "--port", String(port), "--interval", "1s", ...(expected.args ?? [])],
      env
    )
    const lines = answer.output.trim().split("\n")
    expect(lines, answer.output).toHaveLength(1)
    expect(lines[0]).toMatch(expected.line)
    expect(answer.code).toBe(expected.code)
    expect(answer.output).not.toContain("joins the fleet")
    expect(yield* tablesOf(seeded.db)).toEqual(before)
    expect(seeded.exchange.requests()).toEqual([])
    return lines[0] ?? ""
  })

const newKey = "make one with: node -e "

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)(
  "bills fleet run checks its settings first",
  () => {
    it.live(
      "BILLS_FLEET_KEY unset, empty or short: named, with how to make one",
      () =>
        Effect.gen(function* () {
          const seeded = yield* fleet()
          const [port = 0] = yield* freePorts(1)
          const unset = yield* refused(seeded, port, {
            env: { BILLS_FLEET_KEY: undefined },
            code: 2,
            line: /^bills: BILLS_FLEET_KEY is not set; make one with: node -e /
          })
          expect(unset).not.toContain("FleetKeyInvalid")
          yield* refused(seeded, port, {
            env: { BILLS_FLEET_KEY: "" },
            code: 2,
            line: /^bills: BILLS_FLEET_KEY is empty; make one with: node -e /
          })
          const short = Buffer.alloc(16, 1).toString("base64")
          const shortLine = yield* refused(seeded, port, {
            env: { BILLS_FLEET_KEY: short },
            code: 2,
            line: /^bills: BILLS_FLEET_KEY is 16 bytes long, not 32; /
          })
          expect(shortLine).toContain(newKey)
          expect(shortLine).not.toContain(short)
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "BILLS_FLEET_KEY_PREVIOUS empty or not a key: named, with what it should hold",
      () =>
        Effect.gen(function* () {
          const seeded = yield* fleet()
          const [port = 0] = yield* freePorts(1)
          for (const value of ["", "not a key!", Buffer.alloc(31, 2).toString("base64")]) {
            const line = yield* refused(seeded, port, {
              env: { BILLS_FLEET_KEY_PREVIOUS: value },
              code: 2,
              line: /^bills: BILLS_FLEET_KEY_PREVIOUS is (empty|not base64|31 bytes long, not 32); set it to the key being replaced/
            })
            expect(line).not.toContain(newKey)
            if (value !== "") expect(line).not.toContain(value)
          }
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "--db that does not answer: the flag, the driver's reason, what to check, no password",
      () =>
        Effect.gen(function* () {
          const seeded = yield* fleet()
          const [port = 0, closed = 0] = yield* freePorts(2)
          const line = yield* refused(seeded, port, {
            db: `postgres://bills@127.0.0.1:${closed}/fleet`,
            env: { PGPASSWORD: "hunter2-secret" },
            code: 1,
            line: new RegExp(
              `^bills: --db: cannot use the fleet database postgres://bills@127\\.0\\.0\\.1:${closed}/fleet: .*ECONNREFUSED.*; check that the server runs`
            )
          })
          expect(line).toContain("PGPASSWORD")
          expect(line).not.toContain("hunter2-secret")
          const missing = new URL(postgresUrl ?? "")
          missing.pathname = "/no_such_fleet_db"
          yield* refused(seeded, port, {
            db: missing.toString(),
            code: 1,
            line: /^bills: --db: cannot use the fleet database .*database "no_such_fleet_db" does not exist/
          })
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "--redis that does not answer, and an address budget not sized: the flag and what to do",
      () =>
        Effect.gen(function* () {
          const seeded = yield* fleet()
          const [port = 0, closed = 0] = yield* freePorts(2)
          yield* refused(seeded, port, {
            args: ["--redis", `redis://127.0.0.1:${closed}`, "--ip-rps", "5"],
            code: 1,
            line: new RegExp(
              `^bills: --redis: cannot use the shared budget at redis://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED.*; start that Redis`
            )
          })
          yield* refused(seeded, port, {
            args: ["--redis", redisUrl ?? "", "--ip-rps", "0"],
            code: 2,
            line: /^bills: --ip-rps must be at least 1, got 0$/
          })
          yield* refused(seeded, port, {
            args: ["--redis", redisUrl ?? ""],
            code: 2,
            line: /^bills: --redis holds the budget of --ip-rps, which is not given: add --ip-rps N/
          })
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "--port taken, --host not of this machine, --metrics-port taken: named, before joining",
      () =>
        Effect.gen(function* () {
          const seeded = yield* fleet()
          const [port = 0, busy = 0] = yield* freePorts(2)
          yield* taken(busy)
          yield* refused(seeded, busy, {
            code: 1,
            line: new RegExp(
              `^bills: the runner cannot listen on 127\\.0\\.0\\.1:${busy} \\(--port\\): .*EADDRINUSE.*; choose a free --port`
            )
          })
          // An address of the documentation range (RFC 5737): no interface of this machine has it,
          // and binding to it sends nothing.
          yield* refused(seeded, port, {
            args: ["--host", "203.0.113.7"],
            code: 1,
            line: /^bills: the runner cannot listen on 203\.0\.113\.7:\d+ \(--port\): .*EADDRNOTAVAIL.*--host that is an address of this machine/
          })
          yield* refused(seeded, port, {
            args: ["--metrics-port", String(busy)],
            code: 1,
            line: new RegExp(
              `^bills: --metrics-port: cannot serve metrics on 127\\.0\\.0\\.1:${busy}: .*EADDRINUSE.*; choose a free port`
            )
          })
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "every setting right: the same command joins and syncs the account",
      () =>
        Effect.gen(function* () {
          const seeded = yield* fleet()
          const [port = 0, metrics = 0] = yield* freePorts(2)
          const runner = yield* scopedBills(
            "settings",
            [
              "run",
              "--db",
              seeded.db,
              "--port",
              String(port),
              "--interval",
              "1s",
              "--redis",
              redisUrl ?? "",
              "--ip-rps",
              "5",
              "--metrics-port",
              String(metrics)
            ],
            {
              BILLS_FLEET_KEY: testKey,
              BILLS_FLEET_KEY_PREVIOUS: Buffer.alloc(32, 9).toString("base64"),
              WEEX_BASE_URL: seeded.exchange.url
            }
          )
          yield* until("the account current", 60_000, () => Effect.runPromise(seeded.current(true))).pipe(
            Effect.tapDefect(() => Effect.sync(() => console.error(runner.stderr().slice(-2_000))))
          )
          expect(runner.stderr()).toContain("joins the fleet")
          expect(seeded.exchange.requests().length).toBeGreaterThan(0)
        }).pipe(Effect.scoped),
      120_000
    )
  }
)
