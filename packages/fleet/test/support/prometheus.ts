/**
 * Debian's `/usr/bin/prometheus` on loopback, scraping the runners' `/metrics` every second, and
 * its HTTP query API: the fleet's metrics tests read what a real Prometheus stored.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { freePorts } from "./ports.js"
import { until } from "./until.js"

export const prometheusBin = "/usr/bin/prometheus"

/** An instant vector as Prometheus's `/api/v1/query` answers it. */
const QueryResponse = Schema.Struct({
  status: Schema.Literal("success"),
  data: Schema.Struct({
    resultType: Schema.Literal("vector"),
    result: Schema.Array(
      Schema.Struct({
        metric: Schema.Record({ key: Schema.String, value: Schema.String }),
        value: Schema.Tuple(Schema.Number, Schema.String)
      })
    )
  })
})
export type Sample = { readonly metric: Readonly<Record<string, string>>; readonly value: number }

/** An alert as Prometheus's `/api/v1/alerts` answers it. */
const AlertsResponse = Schema.Struct({
  status: Schema.Literal("success"),
  data: Schema.Struct({
    alerts: Schema.Array(
      Schema.Struct({
        labels: Schema.Record({ key: Schema.String, value: Schema.String }),
        annotations: Schema.Record({ key: Schema.String, value: Schema.String }),
        state: Schema.Literal("pending", "firing")
      })
    )
  })
})
export type Alert = (typeof AlertsResponse.Type)["data"]["alerts"][number]

/** The rule groups as `/api/v1/rules` answers them: each rule's name and whether it evaluates. */
const RulesResponse = Schema.Struct({
  status: Schema.Literal("success"),
  data: Schema.Struct({
    groups: Schema.Array(
      Schema.Struct({
        rules: Schema.Array(
          Schema.Struct({ name: Schema.String, health: Schema.String, lastError: Schema.optional(Schema.String) })
        )
      })
    )
  })
})

/** What Prometheus is given besides its targets. */
export interface PrometheusOptions {
  /** A rules file's text: loaded, and evaluated every second. */
  readonly rules?: string | undefined
}

/**
 * `/usr/bin/prometheus` on loopback for the lifetime of the scope, scraping `targets` every second
 * (and evaluating `options.rules` every second).
 */
export const scopedPrometheus = (targets: ReadonlyArray<string>, options: PrometheusOptions = {}) =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-prom-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const config = path.join(dir, "prometheus.yml")
    const rules = path.join(dir, "rules.yml")
    if (options.rules !== undefined) fs.writeFileSync(rules, options.rules)
    fs.writeFileSync(
      config,
      [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        ...(options.rules === undefined ? [] : ["  evaluation_interval: 1s", "rule_files:", `  - "${rules}"`]),
        "scrape_configs:",
        "  - job_name: account-bills-fleet",
        "    static_configs:",
        `      - targets: [${targets.map((target) => `"${target}"`).join(", ")}]`,
        ""
      ].join("\n")
    )
    const [port] = yield* freePorts(1)
    let log = ""
    const proc = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = spawn(
          prometheusBin,
          [
            `--config.file=${config}`,
            `--storage.tsdb.path=${path.join(dir, "data")}`,
            `--web.listen-address=127.0.0.1:${port}`
          ],
          { stdio: ["ignore", "ignore", "pipe"] }
        )
        child.stderr?.on("data", (chunk: Buffer) => {
          log += chunk.toString()
        })
        return child
      }),
      (child) =>
        Effect.promise(
          () =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve()
              child.once("exit", () => resolve())
              child.kill("SIGKILL")
            })
        )
    )
    const base = `http://127.0.0.1:${port}`
    const query = (promql: string) =>
      Effect.tryPromise(async () => {
        const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`)
        return (await response.json()) as unknown
      }).pipe(
        Effect.flatMap(Schema.decodeUnknown(QueryResponse)),
        Effect.map(
          (body): ReadonlyArray<Sample> =>
            body.data.result.map((each) => ({ metric: each.metric, value: Number(each.value[1]) }))
        )
      )
    yield* until("Prometheus ready", 30_000, async () => (await fetch(`${base}/-/ready`)).ok).pipe(
      Effect.tapDefect(() => Effect.sync(() => console.error(`prometheus (exit ${proc.exitCode}): ${log}`)))
    )
    const get = <A, I>(api: string, schema: Schema.Schema<A, I>) =>
      Effect.runPromise(
        Effect.tryPromise(async () => (await (await fetch(`${base}${api}`)).json()) as unknown).pipe(
          Effect.flatMap(Schema.decodeUnknown(schema))
        )
      )
    return {
      query: (promql: string) => Effect.runPromise(query(promql)),
      /** The alerts pending or firing now. */
      alerts: async (): Promise<ReadonlyArray<Alert>> => (await get("/api/v1/alerts", AlertsResponse)).data.alerts,
      /** Every rule loaded, with its health (`ok` once it has evaluated without error). */
      rules: async () => (await get("/api/v1/rules", RulesResponse)).data.groups.flatMap((group) => group.rules)
    }
  })
