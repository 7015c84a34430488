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
import { BillsApi, BillsConfig, BillsRateLimiter, Signer, credentialsConfig } from "../../src/index.js"
import { FakeExchange, FakeFault } from "../../src/testing/index.js"
import { recordingSpans } from "../support/recordedSpans.js"
import { type Canned, credentials, envelope, makeStub, secretValues } from "../support/stubHttp.js"

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

/** Every string in a value's object graph, with the key it was found under. */
const stringsIn = (root: unknown): Array<readonly [string, string]> => {
  const found: Array<readonly [string, string]> = []
  const seen = new Set<unknown>()
  const walk = (key: string, value: unknown): void => {
    if (typeof value === "string") return void found.push([key, value])
    if (typeof value !== "object" || value === null || seen.has(value)) return
    seen.add(value)
    if (value instanceof Map) for (const [k, v] of value) walk(String(k), v)
    else for (const k of Object.keys(value)) walk(k, (value as Record<string, unknown>)[k])
  }
  walk("", root)
  return found
}

describe("no secret in any value of the in-memory client's spans", () => {
  // The kit's in-memory HttpClient, with credentials that appear nowhere else.
  const plain = {
    apiKey: Redacted.value(credentials.apiKey),
    secret: Redacted.value(credentials.secret),
    passphrase: Redacted.value(credentials.passphrase)
  }
  const stack = BillsApi.layer.pipe(
    Layer.provideMerge(
      FakeExchange.layer({ credentials: plain, rateLimit: false, generate: { seed: 3, funding: 0, spot: 20 } })
    ),
    Layer.provide(Signer.layer(credentials)),
    Layer.provide(BillsRateLimiter.layerUnlimited),
    Layer.provide(Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake-exchange.test", maxAttempts: 1 })))
  )

  it.effect(
    "a success and a broken connection: span values (successes too), logs and errors hold no ACCESS-* value",
    () =>
      Effect.gen(function* () {
        const spans: Array<Tracer.Span> = []
        const logged: Array<unknown> = []
        const program = Effect.gen(function* () {
          const api = yield* BillsApi
          const exchange = yield* FakeExchange
          const page = yield* api.spotBills({ limit: 10 })
          yield* Effect.logInfo("page", page)
          yield* exchange.failNext(FakeFault.Reset())
          const error = yield* Effect.flip(api.spotBills({ limit: 10 }))
          yield* Effect.logError("failed", error)
          return [page, error] as const
        })
        const values = yield* program.pipe(
          Effect.provide(
            Logger.replace(
              Logger.defaultLogger,
              Logger.make(({ message }) => void logged.push(message))
            )
          ),
          recordingSpans(spans)
        )
        const http = spans.filter((span) => span.name.startsWith("http.client"))
        expect(http).toHaveLength(2)
        const exits = spans.flatMap((span) => (span.status._tag === "Ended" ? [span.status.exit] : []))
        expect(exits.some((exit) => Exit.isSuccess(exit))).toBe(true)
        expect(exits.some((exit) => Exit.isFailure(exit))).toBe(true)
        const strings = stringsIn([exits, logged, values])
        // The success value of the HTTP span is a response, which carries its request.
        expect(strings.some(([key]) => key === "content-type")).toBe(true)
        expect(strings.filter(([key]) => /^access-(key|sign|passphrase)$/i.test(key))).toEqual([])
        for (const [, text] of strings) for (const secret of secretValues) expect(text).not.toContain(secret)
      }).pipe(Effect.provide(stack))
  )
})
