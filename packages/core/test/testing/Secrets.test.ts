import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import { BillsApi, Signer, credentialsConfig } from "../../src/index.js"
import { type Canned, envelope, makeStub, secretValues } from "../support/stubHttp.js"

const failures: ReadonlyArray<readonly [string, Canned]> = [
  ["a signature failure", { status: 401, body: envelope(null, "40009", "sign signature error") }],
  ["a transport failure", { reset: true }],
  ["an unreadable body", { status: 200, body: "<html>oops</html>" }],
  ["a server error", { status: 500, body: envelope(null, "50000", "internal") }]
]

/** Everything a failing call could show to a person or a backend: text of errors, logs, spans. */
const observe = (answer: Canned) => {
  const stub = makeStub([answer])
  const spans: Array<{ readonly span: Tracer.Span; readonly events: Array<string> }> = []
  const lines: Array<string> = []
  const logger = Logger.make(({ message, cause, annotations }) => {
    lines.push(Inspectable.format(message), Cause.pretty(cause), Inspectable.format(Object.fromEntries(annotations)))
  })
  const program = Effect.gen(function* () {
    const api = yield* BillsApi
    const fiber = yield* Effect.fork(
      Effect.flip(
        api.spotBills({ limit: 10 }).pipe(
          Effect.tapErrorCause((cause) => Effect.logError("spotBills failed", cause)),
          Effect.withSpan("user.program")
        )
      )
    )
    yield* TestClock.adjust("10 minutes")
    const error = yield* Fiber.join(fiber)
    yield* Effect.logDebug("caught", error)
    return error
  }).pipe(
    Effect.provide(stub.layer),
    Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
    Logger.withMinimumLogLevel(LogLevel.All),
    (effect) =>
      Effect.tracerWith((base) =>
        Effect.withTracer(
          effect,
          Tracer.make({
            context: base.context,
            span: (...args) => {
              const span = base.span(...args)
              // Events are recorded as they are added, through the Span interface itself, so a
              // change in how the tracer stores them cannot make this test skip them.
              const events: Array<string> = []
              const addEvent = span.event.bind(span)
              span.event = (name, startTime, attributes) => {
                events.push(`${name} ${Inspectable.format(attributes ?? {})}`)
                addEvent(name, startTime, attributes)
              }
              spans.push({ span, events })
              return span
            }
          })
        )
      )
  )
  return { stub, spans, lines, program }
}

describe("no secret leaks", () => {
  for (const [name, answer] of failures) {
    it.effect(`${name}: error, logs and spans carry no credential or signature`, () => {
      const { stub, spans, lines, program } = observe(answer)
      return Effect.gen(function* () {
        const error = yield* program
        const signatures = stub.requests.map((r) => r.headers["access-sign"] ?? "")
        expect(signatures.every((s) => s.length > 20)).toBe(true)
        const spanText = spans.flatMap(({ events, span }) => [
          span.name,
          ...[...span.attributes].map(([key, value]) => `${key}=${String(value)}`),
          ...events,
          // A span's failure is exported (status, exception); its success value is not.
          span.status._tag === "Ended" && Exit.isFailure(span.status.exit) ? Cause.pretty(span.status.exit.cause) : ""
        ])
        // The failure was logged inside the user's span, so it is one of the events looked at.
        expect(spanText.some((text) => text.startsWith("spotBills failed"))).toBe(true)
        // The HTTP client span exists and records request headers, redacted.
        expect(spanText.some((text) => text.startsWith("http.request.header.access-key="))).toBe(true)
        expect(spanText.some((text) => text.startsWith("http.request.header.access-timestamp="))).toBe(true)
        const everything = [
          error.message,
          String(error),
          JSON.stringify(error),
          Inspectable.format(error),
          Cause.pretty(Cause.fail(error)),
          ...lines,
          ...spanText
        ].join("\n")
        expect(lines.length).toBeGreaterThan(0)
        for (const secret of [...secretValues, ...signatures]) expect(everything).not.toContain(secret)
      })
    })
  }

  it.effect("credentials read from the environment stay redacted", () =>
    Effect.gen(function* () {
      const credentials = yield* credentialsConfig
      const shown = [String(credentials.secret), Inspectable.format(credentials), JSON.stringify(credentials)].join()
      for (const secret of secretValues) expect(shown).not.toContain(secret)
      expect(Redacted.value(credentials.secret)).toBe("secret-s3cr3t-visible-nowhere")
      const signer = yield* Effect.provide(Signer, Signer.layerConfig())
      const headers = yield* signer.headers({ method: "POST", path: "/api/v2/account/bills", query: "", body: "{}" })
      expect(headers["ACCESS-KEY"]).toBe("key-AKIA-visible-nowhere")
    }).pipe(
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map([
            ["WEEX_API_KEY", "key-AKIA-visible-nowhere"],
            ["WEEX_API_SECRET", "secret-s3cr3t-visible-nowhere"],
            ["WEEX_API_PASSPHRASE", "pass-phrase-visible-nowhere"]
          ])
        )
      )
    )
  )

  it.effect("a missing credential fails the layer with a ConfigError that names the variable", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Layer.build(Signer.layerConfig()).pipe(Effect.scoped))
      expect(String(error)).toContain("WEEX_API_PASSPHRASE")
    }).pipe(
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map([
            ["WEEX_API_KEY", "k"],
            ["WEEX_API_SECRET", "s"]
          ])
        )
      )
    )
  )
})
