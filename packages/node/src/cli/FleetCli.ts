/**
 * `bills fleet add|remove|run|status|rekey`: the fleet from the command line. The `bills` program
 * loads this module only when `bills fleet` runs, so the client's commands load no cluster.
 *
 * Exit codes as `bills`: 0 done (and a runner stopped with SIGTERM or SIGINT after handing its
 * accounts over), 1 failed, 2 bad flags or values, 130 interrupted; and for `status`, as
 * monitoring checks read them: 3 an account is failing, 4 an account is behind past `--max-lag`.
 *
 * @since 0.1.0
 */
import { BillKind, BillsConfig, credentialsConfig } from "@account-bills/core"
import {
  AccountPass,
  AddressBudget,
  FleetAccounts,
  FleetCipher,
  FleetDatabase,
  FleetObservability,
  FleetPortUnavailable,
  FleetRunner,
  FleetStatus
} from "@account-bills/fleet"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { versionOf } from "../internal/version.js"
import * as CliHelp from "./CliHelp.js"
import { report } from "./FailureMessage.js"

/**
 * A flag or value the command line cannot use.
 *
 * @since 0.1.0
 * @category errors
 */
export class FleetUsageError extends Schema.TaggedError<FleetUsageError>("@account-bills/fleet/FleetUsageError")(
  "FleetUsageError",
  { reason: Schema.String }
) {
  override get message(): string {
    return this.reason
  }
}

/**
 * A setting of `bills fleet run` that is well formed but cannot be used: the database or the
 * Redis does not answer, the metrics port is taken. It names the flag and what to do; the runner
 * has not joined the fleet.
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetSettingUnusable extends Schema.TaggedError<FleetSettingUnusable>(
  "@account-bills/fleet/FleetSettingUnusable"
)("FleetSettingUnusable", { setting: Schema.String, problem: Schema.String, remedy: Schema.String }) {
  override get message(): string {
    return `${this.setting}: ${this.problem}; ${this.remedy}`
  }
}

/** A settings problem in one line: the variable and what is wrong with it. */
const configProblem = (error: ConfigError.ConfigError): string =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left, right) => [left, right].filter((each) => each !== "").join("; "),
    orCase: (_, left) => left,
    invalidDataCase: (_, path, message) =>
      message.startsWith(path.join(".")) ? message : `${path.join(".")}: ${message}`,
    missingDataCase: (_, path, message) => `${path.join(".")}: ${message}`,
    sourceUnavailableCase: (_, path, message) => `${path.join(".")}: ${message}`,
    unsupportedCase: (_, path, message) => `${path.join(".")}: ${message}`
  })

const db = Options.text("db").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("the fleet's PostgreSQL database, postgres://user@host/db (password in PGPASSWORD)")
)
const label = Options.text("label").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription("the account's name in the fleet")
)

const units: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/**
 * A duration as `--interval` takes it: a number and a unit, `500ms`, `5s`, `1m`, `2h`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseDuration = (text: string, flag = "--interval"): Effect.Effect<Duration.Duration, FleetUsageError> => {
  const found = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim())
  const millis = found === null ? Number.NaN : Number(found[1]) * (units[found[2] ?? ""] ?? Number.NaN)
  return Number.isFinite(millis) && millis > 0
    ? Effect.succeed(Duration.millis(millis))
    : Effect.fail(new FleetUsageError({ reason: `${flag} wants a duration such as 5s or 1m, got "${text}"` }))
}

/**
 * What `bills fleet status` found that a monitoring check acts on: an account failing (exit 3)
 * or, with `--max-lag`, behind by more (exit 4). The status itself is printed first.
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetStatusAlert extends Schema.TaggedError<FleetStatusAlert>("@account-bills/fleet/FleetStatusAlert")(
  "FleetStatusAlert",
  { exitCode: Schema.Literal(3, 4), reason: Schema.String }
) {
  override get message(): string {
    return this.reason
  }
}

const addCommand = Command.make("add", { db, label }, ({ db, label }) =>
  Effect.gen(function* () {
    const credentials = yield* Effect.mapError(
      credentialsConfig,
      () =>
        new FleetUsageError({
          reason: "set WEEX_API_KEY, WEEX_API_SECRET and WEEX_API_PASSPHRASE to the account's credentials"
        })
    )
    const accounts = yield* FleetAccounts
    const done = yield* accounts.add(label, credentials)
    yield* Console.log(done === "added" ? `added ${label}` : `replaced the credentials of ${label}`)
  }).pipe(Effect.provide(FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layerConfig))))
).pipe(
  Command.withDescription(
    "add an account (credentials from WEEX_API_KEY, _SECRET, _PASSPHRASE), or replace its credentials"
  )
)

const removeCommand = Command.make("remove", { db, label }, ({ db, label }) =>
  Effect.gen(function* () {
    const accounts = yield* FleetAccounts
    const removed = yield* accounts.remove(label)
    // Idempotent, as a script that removes an account twice (or after another operator) expects.
    yield* removed
      ? Console.log(`removed ${label}; its bills stay in the store`)
      : Effect.sync(() =>
          process.stderr.write(
            `bills: note: the fleet has no account labelled "${label}" (already removed?); nothing to do\n`
          )
        )
  }).pipe(Effect.provide(FleetDatabase.layer(db, { create: false })))
).pipe(
  Command.withDescription(
    "remove an account from the fleet (its bills stay in the store); a label the fleet does not hold is a note, exit 0"
  )
)

const rekeyCommand = Command.make("rekey", { db }, ({ db }) =>
  Effect.gen(function* () {
    const accounts = yield* FleetAccounts
    const count = yield* accounts.rekey
    yield* Console.log(
      `re-encrypted ${count} accounts under BILLS_FLEET_KEY; once every runner has it, BILLS_FLEET_KEY_PREVIOUS can go`
    )
  }).pipe(Effect.provide(FleetDatabase.layer(db, { create: false }).pipe(Layer.provide(FleetCipher.layerConfig))))
).pipe(
  Command.withDescription(
    "re-encrypt every account's credentials under BILLS_FLEET_KEY, in one transaction; each must open under it or under BILLS_FLEET_KEY_PREVIOUS, else nothing changes"
  )
)

const iso = (millis: number | null) => (millis === null ? "-" : `${new Date(millis).toISOString().slice(0, 19)}Z`)

/** A span of time as a person reads it: 850ms, 42s, 7m, 3h, 2d. */
const span = (millis: number | null): string => {
  if (millis === null) return "-"
  if (millis < 1_000) return `${Math.round(millis)}ms`
  if (millis < 120_000) return `${Math.round(millis / 1_000)}s`
  if (millis < 7_200_000) return `${Math.round(millis / 60_000)}m`
  if (millis < 172_800_000) return `${Math.round(millis / 3_600_000)}h`
  return `${Math.round(millis / 86_400_000)}d`
}

/** An account whose kinds are all covered to within this of now, with no error, is current. */
const currentWithinMillis = 600_000

const errorsOf = (row: FleetStatus.AccountStatus, now: number): string =>
  BillKind.literals
    .flatMap((kind) => {
      const status = row[kind]
      if (status.error === null) return []
      const since = status.errorSince === null ? "" : ` (for ${span(now - status.errorSince)})`
      return [`${kind}: ${status.error}${since}`]
    })
    .join("; ")

/** The kinds of a row a check watches (internal/watchedKinds.ts). */
const watchedOf = (row: FleetStatus.AccountStatus): ReadonlyArray<FleetStatus.KindStatus> =>
  BillKind.literals.flatMap((kind) =>
    FleetStatus.isWatched(kind, row[kind].coveredTo !== null, row[kind].error !== null) ? [row[kind]] : []
  )

/** A row one of whose watched kinds fails. */
const isFailing = (row: FleetStatus.AccountStatus): boolean => watchedOf(row).some((kind) => kind.error !== null)

/** The status as lines: a summary, then one row per account. */
const statusLines = (
  rows: ReadonlyArray<FleetStatus.AccountStatus>,
  runners: ReadonlyArray<FleetStatus.RunnerStatus>,
  now: number
): ReadonlyArray<string> => {
  const failing = rows.filter(isFailing)
  const current = rows.filter(
    (row) =>
      !failing.includes(row) &&
      watchedOf(row).every((kind) => kind.lagMillis !== null && kind.lagMillis <= currentWithinMillis)
  )
  const alive = runners.filter((runner) => runner.alive)
  const dead = runners.filter((runner) => !runner.alive)
  const summary =
    `${rows.length} accounts: ${current.length} current, ${rows.length - current.length - failing.length} behind, ` +
    `${failing.length} failing; runners: ${alive.length} alive` +
    (dead.length === 0
      ? ""
      : `, ${dead.length} stopped heartbeating (${dead.map((runner) => `${runner.address} ${span(runner.heartbeatAgeMillis)} ago`).join(", ")})`)
  const table = [
    [
      "account",
      ...BillKind.literals.flatMap((kind) => [kind, "to", "lag"]),
      "last pass",
      "next pass",
      "owner",
      "error"
    ],
    ...rows.map((row) => [
      row.label,
      ...BillKind.literals.flatMap((kind) => [
        String(row[kind].bills),
        iso(row[kind].coveredTo),
        span(row[kind].lagMillis)
      ]),
      row.lastPass === null ? "-" : `${span(now - row.lastPass)} ago`,
      row.nextPass === null ? "-" : row.nextPass <= now ? "due" : `in ${span(row.nextPass - now)}`,
      row.owner === null ? "-" : row.ownerAlive === false ? `${row.owner} (not heartbeating)` : row.owner,
      errorsOf(row, now)
    ])
  ]
  const widths = table[0]?.map((_, column) => Math.max(...table.map((line) => (line[column] ?? "").length))) ?? []
  return [
    summary,
    ...table.map((line) =>
      line
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd()
    )
  ]
}

/**
 * How far behind a kind is: its lag, or, before its first finished walk, the time since the
 * account was added (an account that never synced is as far behind as it has waited).
 */
const behindBy = (row: FleetStatus.AccountStatus, kind: FleetStatus.KindStatus, now: number): number =>
  kind.lagMillis ?? Math.max(0, now - row.addedAt)

/** The alert of a status, when it calls for one: failing first, then behind. */
const alertOf = (
  rows: ReadonlyArray<FleetStatus.AccountStatus>,
  now: number,
  maxLagMillis: number | undefined
): FleetStatusAlert | undefined => {
  const failing = rows.filter(isFailing)
  if (failing.length > 0) {
    return new FleetStatusAlert({
      exitCode: 3,
      reason: `${failing.length} of ${rows.length} accounts failing: ${failing.map((row) => row.label).join(", ")}`
    })
  }
  if (maxLagMillis === undefined) return undefined
  const behind = rows.filter((row) => watchedOf(row).some((kind) => behindBy(row, kind, now) > maxLagMillis))
  return behind.length === 0
    ? undefined
    : new FleetStatusAlert({
        exitCode: 4,
        reason: `${behind.length} of ${rows.length} accounts behind by more than ${span(maxLagMillis)}: ${behind.map((row) => row.label).join(", ")}`
      })
}

const statusCommand = Command.make(
  "status",
  {
    db,
    json: Options.boolean("json").pipe(Options.withDescription("one JSON object per account per line")),
    watch: Options.boolean("watch").pipe(
      Options.withDescription("refresh every 2 s: in place on a terminal, as new blocks of lines when piped")
    ),
    maxLag: Options.text("max-lag").pipe(
      Options.withPseudoName("DURATION"),
      Options.withDescription("exit 4 when an account is behind by more than this (5m, 1h, ...; see EXIT CODES)"),
      Options.optional
    )
  },
  ({ db, json, watch, maxLag }) =>
    Effect.gen(function* () {
      const threshold = yield* Option.match(maxLag, {
        onNone: () => Effect.succeed(undefined),
        onSome: (text) => Effect.map(parseDuration(text, "--max-lag"), Duration.toMillis)
      })
      const once = Effect.gen(function* () {
        const rows = yield* FleetStatus.all
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        if (json) {
          for (const row of rows) yield* Console.log(JSON.stringify(row))
        } else {
          const runners = yield* FleetStatus.runners
          const lines = statusLines(rows, runners, now)
          // On a terminal the table is redrawn in place; piped, each refresh is a block of its own.
          const clear = watch && process.stdout.isTTY === true ? "\x1b[H\x1b[2J" : ""
          yield* Console.log(clear + lines.join("\n") + (watch && clear === "" ? "\n" : ""))
        }
        return alertOf(rows, now, threshold)
      })
      if (watch) return yield* Effect.repeat(once, Schedule.spaced("2 seconds"))
      const alert = yield* once
      if (alert !== undefined) return yield* alert
    }).pipe(Effect.provide(FleetDatabase.layer(db, { create: false })))
).pipe(
  Command.withDescription(
    "where every account stands: a summary line, then per account and kind the bills held, covered to, lag, the last and next pass, the owner, and each kind's error with how long it has lasted; exit 3 when an account is failing, 4 when one is behind past --max-lag"
  )
)

/** A URL ioredis reads as a Redis server. */
const isRedisUrl = (text: string): boolean => {
  if (!URL.canParse(text)) return false
  const url = new URL(text)
  return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== ""
}

/** How long a runner told to stop may take to hand its accounts over. */
const handOverDeadlineMillis = 4_000

const runFlags = {
  db,
  redis: Options.text("redis").pipe(
    Options.withPseudoName("URL"),
    Options.withDescription(
      "Redis URL of the budget shared by every runner on this source address; without it the budget stays in this process, which is right only when this runner is alone on its address"
    ),
    Options.optional
  ),
  host: Options.text("host").pipe(
    Options.withPseudoName("ADDRESS"),
    Options.withDescription("the address other runners reach this one at (default: 127.0.0.1)"),
    Options.withDefault("127.0.0.1")
  ),
  port: Options.integer("port").pipe(
    Options.withPseudoName("N"),
    Options.withDescription("the port other runners reach this one at (default: 34431)"),
    Options.withDefault(34431)
  ),
  interval: Options.text("interval").pipe(
    Options.withPseudoName("DURATION"),
    Options.withDescription("time between the passes of an account that is current: 5s, 1m, ... (default: 60s)"),
    Options.withDefault("60s")
  ),
  ipRps: Options.integer("ip-rps").pipe(
    Options.withPseudoName("N"),
    Options.withDescription("requests per second per operation for the whole source address (default: no budget)"),
    Options.optional
  ),
  maxRps: Options.integer("max-rps").pipe(
    Options.withPseudoName("N"),
    Options.withDescription("requests per second per operation of one account, its key (default: 10)"),
    Options.withDefault(10)
  ),
  concurrency: Options.integer("concurrency").pipe(
    Options.withPseudoName("N"),
    Options.withDescription(
      "requests in flight per kind and account (default: 1, every request a page kept; more reads one account's first sync sooner but throws away what was read ahead when a pass stops at --pages-per-pass)"
    ),
    Options.optional
  ),
  localAddress: Options.text("local-address").pipe(
    Options.withPseudoName("A,B,..."),
    Options.withDescription(
      "local addresses to send requests from, comma-separated (A,B,...): the exchange limits each source address apart, so each gets its own budget of --ip-rps; an account always leaves from the same one"
    ),
    Options.optional
  ),
  metricsPort: Options.integer("metrics-port").pipe(
    Options.withPseudoName("N"),
    Options.withDescription(
      "serve /metrics (Prometheus), /healthz and /readyz on this port (default: not served; see docs/observability.md)"
    ),
    Options.optional
  ),
  metricsHost: Options.text("metrics-host").pipe(
    Options.withPseudoName("ADDRESS"),
    Options.withDescription(
      "the address --metrics-port listens on (default: 127.0.0.1; 0.0.0.0 for a scraper on another machine)"
    ),
    Options.withDefault("127.0.0.1")
  ),
  pagesPerPass: Options.integer("pages-per-pass").pipe(
    Options.withPseudoName("N"),
    Options.withDescription(
      `pages per kind in one pass; longer walks continue in the next pass (default: ${AccountPass.defaultPagesPerPass})`
    ),
    Options.withDefault(AccountPass.defaultPagesPerPass)
  )
}

const runCommand = Command.make("run", runFlags, (flags) =>
  Effect.gen(function* () {
    // Before the runner says it joins: a database it cannot use is a bad flag, said in one line.
    yield* FleetDatabase.postgres(flags.db)
    const interval = yield* parseDuration(flags.interval)
    for (const [name, value] of [
      ["--max-rps", flags.maxRps],
      ["--pages-per-pass", flags.pagesPerPass],
      ["--ip-rps", Option.getOrElse(flags.ipRps, () => 1)],
      ["--concurrency", Option.getOrElse(flags.concurrency, () => 1)]
    ] as const) {
      if (value < 1) return yield* new FleetUsageError({ reason: `${name} must be at least 1, got ${value}` })
    }
    for (const [name, port] of [
      ["--port", flags.port],
      ["--metrics-port", Option.getOrElse(flags.metricsPort, () => 1)]
    ] as const) {
      if (port < 1 || port > 65_535) {
        return yield* new FleetUsageError({ reason: `${name} must be a port, 1 to 65535, got ${port}` })
      }
    }
    // The shared budget is one's to size: Redis alone would say where it lives, not how large
    // it is, and a runner that ignored it would run with no budget at all.
    if (Option.isSome(flags.redis) && Option.isNone(flags.ipRps)) {
      return yield* new FleetUsageError({
        reason:
          "--redis holds the budget of --ip-rps, which is not given: add --ip-rps N (the exchange's limit per source address)"
      })
    }
    if (Option.isSome(flags.redis) && !isRedisUrl(flags.redis.value)) {
      return yield* new FleetUsageError({
        reason: "--redis wants a Redis URL, redis://[user@]host[:port][/db] or rediss://…"
      })
    }
    const localAddresses = Option.match(flags.localAddress, {
      onNone: () => [],
      onSome: (list) => list.split(",").map((each) => each.trim())
    })
    for (const address of localAddresses) {
      const why = yield* FleetRunner.unusableAddress(address)
      if (why !== undefined) return yield* new FleetUsageError({ reason: `--local-address ${address} ${why}` })
    }
    if (new Set(localAddresses).size !== localAddresses.length) {
      return yield* new FleetUsageError({ reason: "--local-address names an address twice" })
    }
    // The client settings `bills sync` reads, from the same code; a bad one stops the runner here.
    const config = yield* BillsConfig.input.pipe(
      Effect.tap(BillsConfig.make),
      Effect.mapError((error) => new FleetUsageError({ reason: configProblem(error) }))
    )
    const budget = Option.match(flags.ipRps, {
      onNone: () => AddressBudget.layerNone,
      onSome: (limit) =>
        Option.match(flags.redis, {
          onNone: () => AddressBudget.layerMemory({ limit }),
          onSome: (url) => AddressBudget.layerRedis(url, { limit })
        })
    })
    // Every setting the runner cannot work without is read and checked before it joins (issue 52,
    // section 2): it takes no shard and sends nothing when one of them is wrong, and the line it
    // stops with names the variable or flag. The key and the previous key (both opened now), the
    // database (a connection and a SELECT 1), the Redis of the address budget (connected and
    // closed), then the addresses it listens on.
    yield* Effect.scoped(Layer.build(Layer.merge(FleetCipher.layerConfig, budget))).pipe(
      Effect.catchTag("BudgetUnavailable", (error) =>
        Effect.fail(
          new FleetSettingUnusable({
            setting: "--redis",
            problem: error.message,
            remedy: "start that Redis, or point --redis at the one the fleet's runners share"
          })
        )
      )
    )
    yield* FleetDatabase.check(flags.db).pipe(
      Effect.catchTag("FleetUnavailable", (error) =>
        Effect.fail(
          new FleetSettingUnusable({
            setting: "--db",
            problem: error.message,
            remedy: "check that the server runs, the URL (user, host, port, database) and PGPASSWORD"
          })
        )
      )
    )
    const clusterAddress = yield* FleetRunner.listenProblem(flags.host, flags.port)
    if (clusterAddress !== undefined) {
      return yield* new FleetPortUnavailable({ host: flags.host, port: flags.port, reason: clusterAddress })
    }
    if (Option.isSome(flags.metricsPort)) {
      const metricsAddress = yield* FleetRunner.listenProblem(flags.metricsHost, flags.metricsPort.value)
      if (metricsAddress !== undefined) {
        return yield* new FleetSettingUnusable({
          setting: "--metrics-port",
          problem: `cannot serve metrics on ${flags.metricsHost}:${flags.metricsPort.value}: ${metricsAddress}`,
          remedy: "choose a free port (and with --metrics-host an address of this machine)"
        })
      }
    }
    const runner = FleetRunner.launch({
      db: flags.db,
      host: flags.host,
      port: flags.port,
      interval,
      maxRps: flags.maxRps,
      pagesPerPass: flags.pagesPerPass,
      concurrency: Option.getOrUndefined(flags.concurrency),
      localAddresses,
      config,
      metrics: Option.match(flags.metricsPort, {
        onNone: () => undefined,
        onSome: (port) => ({ port, host: flags.metricsHost })
      })
    }).pipe(
      Effect.provide(budget),
      Effect.provide(FleetCipher.layerConfig),
      // Traces and metrics to OTEL_EXPORTER_OTLP_ENDPOINT when it is set: below the runner, so
      // its spans (passes, grants, the cluster's) use the exporter's tracer.
      Effect.provide(FleetObservability.layerOtlp())
    )
    // SIGTERM and SIGINT (Ctrl-C) are a hand-over, not a failure: the runner's layer closes (its
    // accounts move to the other runners) and the process exits 0.
    const stop = yield* Deferred.make<void>()
    const onStop = () => {
      Deferred.unsafeDone(stop, Effect.void)
      // A hand-over waits on the servers (shard locks, leases): with one of them away it may
      // not finish. The runner still stops, in time for a supervisor's grace period; its
      // accounts move to other runners when its shard locks and store leases run out.
      setTimeout(() => {
        process.stderr.write(
          `bills: the runner could not hand its accounts over within ${handOverDeadlineMillis / 1_000} s (a server is away); it stops now, and its accounts move when their locks run out\n`
        )
        process.exit(0)
      }, handOverDeadlineMillis).unref()
    }
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.removeAllListeners(signal)
      process.once(signal, onStop)
    }
    yield* Effect.logInfo(`runner at ${flags.host}:${flags.port} joins the fleet`)
    // Said when the hand-over begins: with the line that ends it, the log shows how long it took.
    // A runner that finds the store newer than its release knows hands its accounts over and
    // fails with StoreTooNew: the process exits 1 with its message (an upgrade one runner at a
    // time: docs/many-accounts.md).
    yield* Effect.raceFirst(
      runner,
      Effect.zipRight(Deferred.await(stop), Effect.logInfo("runner told to stop: it hands its accounts over"))
    )
    yield* Effect.logInfo("runner handed its accounts over")
    // Nothing is left to do: a socket or a timer a driver leaves behind (a server that is away,
    // a connection closing) does not keep a runner that was told to stop alive, not even for
    // a second (it was seen to add one to every stop).
    yield* Effect.sync(() => setImmediate(() => process.exit(0)).unref())
  })
).pipe(
  Command.withDescription(
    "run one runner: it syncs every account it owns every --interval; SIGTERM hands its accounts over and exits 0. " +
      "It reads BILLS_FLEET_KEY (the key the credentials are encrypted with), PGPASSWORD (when --db has none), " +
      "and the client settings bills sync reads: WEEX_BASE_URL, WEEX_LOCALE, WEEX_API_VERSION (v2 or v3)"
  )
)

const fleet = Command.make("fleet").pipe(
  Command.withDescription("many accounts from many processes: a fleet on PostgreSQL (and Redis)"),
  Command.withSubcommands([addCommand, removeCommand, runCommand, statusCommand, rekeyCommand])
)

/** The names of the fleet's commands, for a mistyped one's suggestion. */
const commandNames = ["add", "remove", "run", "status", "rekey"]

/** The help's last section: every variable a runner or a fleet command reads. */
const environment = HelpDoc.sequence(
  HelpDoc.sequence(
    HelpDoc.h1("ENVIRONMENT"),
    HelpDoc.enumeration(
      [
        "BILLS_FLEET_KEY: the key the accounts' credentials are encrypted with (32 bytes, base64); add, run and rekey need it",
        "BILLS_FLEET_KEY_PREVIOUS: while the key rotates, the key it replaces: credentials open under either and are written under BILLS_FLEET_KEY; bills fleet rekey then re-encrypts every row",
        "PGPASSWORD: the password of the fleet's PostgreSQL database, when --db has none (never put it in the URL)",
        "WEEX_BASE_URL, WEEX_LOCALE, WEEX_API_VERSION (v2 or v3): the client settings, read as bills sync reads them",
        "WEEX_API_KEY, WEEX_API_SECRET, WEEX_API_PASSPHRASE: the credentials of the account fleet add adds",
        "OTEL_EXPORTER_OTLP_ENDPOINT: run sends its traces and metrics there over OTLP/HTTP (/v1/traces, /v1/metrics), as service.name account-bills-fleet; OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf or http/json), OTEL_EXPORTER_OTLP_HEADERS as OpenTelemetry reads them (see docs/observability.md)"
      ].map((line) => HelpDoc.p(line)) as [HelpDoc.HelpDoc, ...Array<HelpDoc.HelpDoc>]
    )
  ),
  HelpDoc.sequence(
    HelpDoc.sequence(
      HelpDoc.h1("EVERY COMMAND"),
      HelpDoc.enumeration(
        CliHelp.everyCommand.map((line) => HelpDoc.p(line)) as [HelpDoc.HelpDoc, ...Array<HelpDoc.HelpDoc>]
      )
    ),
    HelpDoc.sequence(
      HelpDoc.h1("EXIT CODES"),
      HelpDoc.enumeration(
        [
          "0: done; a runner stopped by SIGTERM or SIGINT exits 0 once its accounts are handed over",
          "1: failed (the database, Redis, the port); 2: bad flags or values",
          "3: status found an account failing; 4: status found one behind past --max-lag"
        ].map((line) => HelpDoc.p(line)) as [HelpDoc.HelpDoc, ...Array<HelpDoc.HelpDoc>]
      )
    )
  )
)

const cli = (version: string) =>
  Command.run(Command.make("bills").pipe(Command.withSubcommands([fleet])), {
    name: "bills",
    version,
    footer: environment
  })

/**
 * Runs `bills fleet …` on the whole `argv` (node, script, `fleet`, …) and resolves to the exit
 * code; every failure has been reported on stderr in one line by then.
 *
 * @since 0.1.0
 * @category utils
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number> => {
  const { format, rest } = logFormatOf(argv)
  if (format !== "logfmt" && format !== "json") {
    return report(`--log-format wants logfmt or json, got "${format}"`, 2)
  }
  // Logs go to stderr, one line each: logfmt, or one JSON object a line for log shippers.
  const logger = Logger.withConsoleError(format === "json" ? Logger.jsonLogger : Logger.logfmtLogger)
  return Effect.provide(mainWith(CliHelp.hoistLogLevel(rest)), Logger.replace(Logger.defaultLogger, logger))
}

/**
 * `--log-format logfmt|json` wherever it is written, out of the arguments: it applies to every
 * command alike.
 */
const logFormatOf = (
  argv: ReadonlyArray<string>
): { readonly format: string; readonly rest: ReadonlyArray<string> } => {
  const rest: Array<string> = []
  let format = "logfmt"
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg.startsWith("--log-format=")) format = arg.slice("--log-format=".length)
    else if (arg === "--log-format" && i + 1 < argv.length) format = argv[++i] as string
    else rest.push(arg)
  }
  return { format, rest }
}

const mainWith = (argv: ReadonlyArray<string>): Effect.Effect<number> => {
  const cliErrors: Array<string> = []
  // Colours only for a person at a terminal who has not asked for none (https://no-color.org).
  const colour = process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""
  const quietConsole = Effect.map(Console.consoleWith(Effect.succeed), (console) => ({
    ...console,
    log: (...args: ReadonlyArray<unknown>) =>
      console.log(
        ...args.map((arg) =>
          typeof arg === "string" ? CliHelp.tidy(colour ? arg : CliHelp.withoutColour(arg), "bills fleet") : arg
        )
      ),
    error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void cliErrors.push(args.map(String).join(" ")))
  }))
  return Effect.flatMap(quietConsole, (console) =>
    Effect.flatMap(versionOf("@account-bills/fleet"), (version) => cli(version)(argv)).pipe(
      Effect.withConsole(console),
      Effect.as(0),
      Effect.catchAll((error) => {
        if (ValidationError.isValidationError(error)) {
          if (ValidationError.isHelpRequested(error)) return Effect.succeed(0)
          // `bills fleet adds`: the nearest command, not @effect/cli's "use 'fleet'".
          const mistyped = ValidationError.isCommandMismatch(error)
            ? CliHelp.mistypedCommand(argv.slice(argv.indexOf("fleet") + 1), commandNames)
            : undefined
          if (mistyped !== undefined) return report(CliHelp.unknownCommand(mistyped, "bills fleet", commandNames), 2)
          return report(CliHelp.firstLine(cliErrors.join("\n")), 2)
        }
        return report(
          error.message,
          error._tag === "FleetStatusAlert"
            ? error.exitCode
            : error._tag === "FleetUsageError" ||
                error._tag === "FleetNeedsPostgres" ||
                error._tag === "FleetLabelInvalid" ||
                error._tag === "FleetKeyInvalid"
              ? 2
              : 1
        )
      }),
      Effect.catchAllDefect((defect) => report(`internal error: ${String(defect)}`, 1)),
      Effect.provide(Layer.merge(NodeContext.layer, CliConfig.layer({ showBuiltIns: false })))
    )
  )
}

/**
 * `main` as a promise on this package's own Effect runtime, for a `bills` program that bundles
 * another copy of `effect`; `signal` interrupts it.
 *
 * @since 0.1.0
 * @category utils
 */
export const run = (argv: ReadonlyArray<string>, signal?: AbortSignal): Promise<number> =>
  Effect.runPromise(main(argv), signal === undefined ? undefined : { signal })
