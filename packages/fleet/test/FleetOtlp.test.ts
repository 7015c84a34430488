/**
 * OTLP for operators who run a collector (issue 30 §1): a runner started with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` sends its traces and metrics there, under the OpenTelemetry
 * convention's paths (`/v1/traces`, `/v1/metrics`), headers (`OTEL_EXPORTER_OTLP_HEADERS`,
 * percent-decoded), protocol (`OTEL_EXPORTER_OTLP_PROTOCOL`), resource
 * (`OTEL_RESOURCE_ATTRIBUTES`) and `service.name` (`account-bills-fleet`, or
 * `OTEL_SERVICE_NAME`). The receiving end is an HTTP server on
 * loopback that keeps what it is sent, as a collector's OTLP/HTTP receiver would take it: the
 * runner's exporters are the real ones, in a process of its own.
 */
import * as http from "node:http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 2
const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `otlp-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `otlp-${i}`
/** A collector's token, as operators pass one: percent-encoded in `OTEL_EXPORTER_OTLP_HEADERS`. */
const token = "token with spaces=and equals"

interface Received {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

/** An OTLP/HTTP receiver on loopback that answers 200 to every export and keeps each one. */
const scopedReceiver: Effect.Effect<
  { readonly url: string; readonly received: ReadonlyArray<Received> },
  never,
  Scope.Scope
> = Effect.acquireRelease(
  Effect.async<{ readonly server: http.Server; readonly url: string; readonly received: Array<Received> }>((resume) => {
    const received: Array<Received> = []
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks) })
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ server, url: `http://127.0.0.1:${port}/`, received }))
    })
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

/** What OTLP/JSON carries that this test reads: attributes as key and string value. */
const Attributes = Schema.optionalWith(
  Schema.Array(
    Schema.Struct({ key: Schema.String, value: Schema.Struct({ stringValue: Schema.optional(Schema.String) }) })
  ),
  { default: () => [] }
)
const Resource = Schema.Struct({ attributes: Attributes })
const Traces = Schema.parseJson(
  Schema.Struct({
    resourceSpans: Schema.Array(
      Schema.Struct({
        resource: Resource,
        scopeSpans: Schema.Array(
          Schema.Struct({ spans: Schema.Array(Schema.Struct({ name: Schema.String, attributes: Attributes })) })
        )
      })
    )
  })
)
const Metrics = Schema.parseJson(
  Schema.Struct({
    resourceMetrics: Schema.Array(
      Schema.Struct({
        resource: Resource,
        scopeMetrics: Schema.Array(Schema.Struct({ metrics: Schema.Array(Schema.Struct({ name: Schema.String })) }))
      })
    )
  })
)
const attributeOf = (resource: typeof Resource.Type, key: string) =>
  resource.attributes.find((attribute) => attribute.key === key)?.value.stringValue

describe.skipIf(postgresUrl === undefined)("a runner's OpenTelemetry export", () => {
  it.live(
    "OTEL_EXPORTER_OTLP_ENDPOINT: traces and metrics over http/json with the headers, and over protobuf under OTEL_SERVICE_NAME",
    () =>
      Effect.gen(function* () {
        // A fleet of its own for each runner: runners of one fleet share its accounts by a hash
        // ring, and one of two runners would hold none of two accounts in half the runs.
        const fleet = seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 400 + i, funding: 40, spot: 60, startMillis: now - 2 * day, endMillis: now - 60_000 }
          })
        })
        const [forJson, forProtobuf] = [yield* fleet, yield* fleet]
        const json = yield* scopedReceiver
        const protobuf = yield* scopedReceiver
        const [portJson = 0, portProtobuf = 0] = yield* freePorts(2)
        const runner = (name: string, own: typeof forJson, port: number, otel: Record<string, string>) =>
          scopedBills(name, ["run", "--db", own.db, "--port", String(port), "--interval", "2s"], {
            BILLS_FLEET_KEY: testKey,
            WEEX_BASE_URL: own.exchange.url,
            ...otel
          })
        const runners = [
          yield* runner("json", forJson, portJson, {
            OTEL_EXPORTER_OTLP_ENDPOINT: json.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
            OTEL_EXPORTER_OTLP_HEADERS: `x-collector-token=${encodeURIComponent(token)}`,
            OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=ci"
          }),
          yield* runner("protobuf", forProtobuf, portProtobuf, {
            OTEL_EXPORTER_OTLP_ENDPOINT: protobuf.url,
            OTEL_SERVICE_NAME: "bills-fleet-eu"
          })
        ]
        const log = () => runners.map((runner) => `--- ${runner.name}\n${runner.stderr().slice(-2_000)}`).join("\n")

        const traces = () =>
          json.received
            .filter((each) => each.path === "/v1/traces")
            .flatMap((each) => Schema.decodeUnknownSync(Traces)(each.body.toString()).resourceSpans)
        const metrics = () =>
          json.received
            .filter((each) => each.path === "/v1/metrics")
            .flatMap((each) => Schema.decodeUnknownSync(Metrics)(each.body.toString()).resourceMetrics)
        const passSpans = () =>
          traces().flatMap((each) =>
            each.scopeSpans.flatMap((scope) => scope.spans).filter((span) => span.name === "FleetRunner.pass")
          )
        const metricNames = () =>
          new Set(metrics().flatMap((each) => each.scopeMetrics.flatMap((scope) => scope.metrics.map((m) => m.name))))

        // Passes end every 2 s; the tracer exports every 5 s, the metrics every 10 s.
        yield* until("the passes' spans over http/json", 60_000, () => passSpans().length > 0).pipe(
          Effect.tapDefect(() => Effect.sync(() => console.error(log())))
        )
        yield* until(
          "the fleet's and the client's metrics over http/json",
          60_000,
          () => metricNames().has("account_bills_fleet_passes") && metricNames().has("account_bills_requests")
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error([...metricNames()].join(", "), log()))))
        const accountsSeen = new Set(
          passSpans().flatMap((span) =>
            span.attributes.filter((a) => a.key === "account").map((a) => a.value.stringValue)
          )
        )
        expect([...accountsSeen].every((label) => label?.startsWith("otlp-"))).toBe(true)
        for (const name of [
          "account_bills_fleet_bills",
          "account_bills_fleet_requests",
          "account_bills_fleet_lag_millis"
        ])
          expect(metricNames(), name).toContain(name)
        for (const { resource } of [...traces(), ...metrics()]) {
          expect(attributeOf(resource, "service.name")).toBe("account-bills-fleet")
          expect(attributeOf(resource, "deployment.environment")).toBe("ci")
        }
        for (const each of json.received) {
          expect(each.headers["content-type"]).toMatch(/^application\/json/)
          expect(each.headers["x-collector-token"]).toBe(token)
        }

        // The default protocol: protobuf, whose strings travel as UTF-8 bytes.
        yield* until(
          "traces and metrics over protobuf",
          60_000,
          () =>
            protobuf.received.some((each) => each.path === "/v1/traces") &&
            protobuf.received.some((each) => each.path === "/v1/metrics")
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(log()))))
        for (const each of protobuf.received) {
          expect(each.headers["content-type"]).toMatch(/^application\/x-protobuf/)
          expect(each.body.includes("bills-fleet-eu")).toBe(true)
          expect(each.body.includes("account-bills-fleet")).toBe(false)
        }
        expect(protobuf.received.some((each) => each.body.includes("FleetRunner.pass"))).toBe(true)
        // The collector's token is sent, never logged.
        for (const runner of runners) expect(runner.stderr()).not.toContain(encodeURIComponent(token))
        for (const runner of runners) expect(runner.stderr()).not.toContain(token)
      }).pipe(Effect.scoped),
    120_000
  )
})
