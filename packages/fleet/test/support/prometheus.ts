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

/** `/usr/bin/prometheus` on loopback for the lifetime of the scope, scraping `targets` every second. */
export const scopedPrometheus = (targets: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-prom-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const config = path.join(dir, "prometheus.yml")
    fs.writeFileSync(
      config,
      [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
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
    return { query: (promql: string) => Effect.runPromise(query(promql)) }
  })
