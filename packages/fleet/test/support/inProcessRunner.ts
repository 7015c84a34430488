/**
 * A runner in the test's own process (`FleetRunner.layer`), so that a mutation of the fleet's
 * code is the code it runs, with its `/readyz` and `/metrics` read over loopback: what the
 * in-process tests of readiness and metrics start from.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { AddressBudget, FleetCipher, FleetRunner } from "../../src/index.js"
import { freePorts } from "./ports.js"
import { testKey } from "./services.js"
import { until } from "./until.js"

/** One shard, and assignments refreshed often: the shard settles on one runner within a second or two. */
export const oneShard = {
  shardsPerGroup: 1,
  entityMessagePollInterval: Duration.millis(100),
  refreshAssignmentsInterval: Duration.millis(100),
  runnerHealthCheckInterval: Duration.seconds(1),
  shardLockRefreshInterval: Duration.seconds(1),
  shardLockExpiration: Duration.seconds(5),
  entityTerminationTimeout: Duration.millis(500)
}

/** A runner of `db` on cluster port `port`, serving its metrics and probes on `metrics`, without an address budget. */
export const inProcessRunner = (options: {
  readonly db: string
  readonly exchangeUrl: string
  readonly port: number
  readonly metrics: number
  readonly interval?: Duration.DurationInput | undefined
}) =>
  FleetRunner.layer({
    db: options.db,
    port: options.port,
    interval: options.interval ?? Duration.seconds(30),
    sharding: oneShard,
    metrics: { port: options.metrics },
    config: { baseUrl: options.exchangeUrl }
  }).pipe(Layer.provide(AddressBudget.layerNone), Layer.provide(FleetCipher.layer(Redacted.make(testKey))), Layer.orDie)

/**
 * A runner of `db` passing every `interval`, on one shard, without an address budget or a metrics
 * server, launched in the scope (the tests that watch its passes, not its probes). Answers its
 * fiber: interrupting it stops the runner.
 */
export const launchedRunner = (options: {
  readonly db: string
  readonly exchangeUrl: string
  readonly interval: Duration.DurationInput
}) =>
  Effect.gen(function* () {
    const [port = 0] = yield* freePorts(1)
    return yield* Layer.launch(
      FleetRunner.layer({
        db: options.db,
        port,
        interval: options.interval,
        sharding: oneShard,
        config: { baseUrl: options.exchangeUrl }
      }).pipe(Layer.provide(AddressBudget.layerNone), Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
    ).pipe(Effect.orDie, Effect.forkScoped)
  })

/** What `/readyz` answered. */
export interface Probe {
  readonly status: number
  readonly body: string
}

/** `/readyz` of the metrics server on `port`. */
export const readyz = (port: number): Promise<Probe> =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(async (response) => ({
    status: response.status,
    body: await response.text()
  }))

/** One line of a `/metrics` text: the series' name and labels, and its value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of a Prometheus text exposition (comments and `# TYPE` lines left out). */
export const parseMetrics = (text: string): ReadonlyArray<Sample> =>
  text.split("\n").flatMap((line) => {
    const match = sampleLine.exec(line)
    if (match === null || line.startsWith("#")) return []
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(labelPair)].map((pair) => [
        pair[1] ?? "",
        (pair[2] ?? "").replace(/\\n/g, "\n").replace(/\\(.)/g, "$1")
      ])
    )
    return [{ name: match[1] ?? "", labels, value: Number(match[3]) }]
  })

/** `/metrics` of the metrics server on `port`: its text. */
export const metricsText = (port: number): Effect.Effect<string> =>
  Effect.promise(() => fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text()))

/**
 * Waits until, of the runners whose metrics servers are on `ports` (sharing one shard), one
 * answers ready and the others not, three probes in a row; answers the last probes, in the
 * order of `ports`.
 */
export const oneReady = (ports: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Probe>> =>
  Effect.suspend(() => {
    let settled = 0
    let last: ReadonlyArray<Probe> = []
    return until("one runner ready and the others not, three probes in a row", 60_000, async () => {
      last = await Promise.all(ports.map(readyz))
      const ready = last.filter((probe) => probe.status === 200).length
      const idle = last.filter((probe) => probe.status === 503).length
      settled = ready === 1 && idle === ports.length - 1 ? settled + 1 : 0
      return settled >= 3
    }).pipe(
      Effect.tapDefect(() => Effect.sync(() => console.error(JSON.stringify(last)))),
      Effect.map(() => last)
    )
  })
