import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import {
  FakeExchange,
  type FakeExchangeService,
  FakeFault,
  type FakeResponse,
  type SignedRequestOptions,
  signedRequest
} from "../../src/testing/index.js"

const send = (exchange: FakeExchangeService, operation: SignedRequestOptions["operation"] = "spotBills") =>
  Effect.flatMap(signedRequest({ operation, body: { limit: 100 } }), exchange.handle)

const summary = (response: FakeResponse): string =>
  response._tag === "Response" || response._tag === "Truncated" ? `${response._tag}:${response.status}` : response._tag

const sendMany = (exchange: FakeExchangeService, n: number) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    for (let i = 0; i < n; i++) out.push(summary(yield* send(exchange, i % 2 === 0 ? "spotBills" : "fundingBills")))
    return out
  })

describe("FakeExchange scripted faults", () => {
  it.effect("the nth call over both operations, or of one operation", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({
        rateLimit: false,
        faults: {
          scripted: [
            { nth: 2, fault: FakeFault.Status({ status: 503 }) },
            { nth: 3, operation: "spotBills", fault: FakeFault.Reset() }
          ]
        }
      })
      // spot, funding(2nd call: 503), spot, funding, spot(3rd spot call: reset), funding
      expect(yield* sendMany(exchange, 6)).toEqual([
        "Response:200",
        "Response:503",
        "Response:200",
        "Response:200",
        "Reset",
        "Response:200"
      ])
      const log = yield* exchange.requests
      expect(log[1]?.outcome).toEqual({ _tag: "Faulted", fault: FakeFault.Status({ status: 503 }) })
      expect(log[4]).toMatchObject({ call: 5, operationCall: 3, operation: "spotBills" })
      expect(log[0]?.outcome).toEqual({ _tag: "Answered", status: 200, code: "00000" })
      expect(log[0]?.params).toEqual({ limit: 100 })
    })
  )

  it.effect("status faults carry an envelope; HTML, code and truncated bodies", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({
        rateLimit: false,
        generate: { seed: 3, spot: 50, funding: 0 }
      })
      const real = yield* send(exchange)
      yield* exchange.failNext(FakeFault.Status({ status: 500 }))
      const s500 = yield* send(exchange)
      expect(s500).toMatchObject({ _tag: "Response", status: 500 })
      expect(s500._tag === "Response" && JSON.parse(s500.body)).toMatchObject({ code: "500" })
      yield* exchange.failNext(FakeFault.Status({ status: 429 }))
      const s429 = yield* send(exchange)
      expect(s429._tag === "Response" && JSON.parse(s429.body)).toMatchObject({ code: "429", msg: "Too Many Requests" })
      for (const status of [200, 502]) {
        yield* exchange.failNext(FakeFault.Html({ status }))
        const html = yield* send(exchange)
        expect(html).toMatchObject({ _tag: "Response", status, headers: { "content-type": "text/html" } })
        expect(html._tag === "Response" && html.body.startsWith("<html>")).toBe(true)
      }
      yield* exchange.failNext(FakeFault.Code({ status: 200, code: "40200", msg: "System maintenance" }))
      const maintenance = yield* send(exchange)
      expect(maintenance._tag === "Response" && JSON.parse(maintenance.body)).toMatchObject({ code: "40200" })
      yield* exchange.failNext(FakeFault.Truncated(), { operation: "spotBills" })
      const truncated = yield* send(exchange)
      if (truncated._tag !== "Truncated" || real._tag !== "Response") return yield* Effect.dieMessage("shape")
      expect(truncated.status).toBe(200)
      expect(real.body.startsWith(truncated.body)).toBe(true)
      expect(truncated.body.length).toBe(Math.floor(real.body.length / 2))
      expect(() => JSON.parse(truncated.body)).toThrow()
      expect((yield* exchange.stats).spotBills).toMatchObject({ requests: 7, faulted: 6, succeeded: 1 })
    })
  )

  it.effect("a hang is a marker the transports turn into no answer", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      yield* exchange.failNext(FakeFault.Hang())
      expect(summary(yield* send(exchange))).toBe("Hang")
      expect((yield* exchange.requests)[0]?.outcome).toEqual({ _tag: "Faulted", fault: FakeFault.Hang() })
      expect(summary(yield* send(exchange))).toBe("Response:200")
    })
  )

  it.effect("a permanent fault holds until cleared; faults use rate capacity", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make()
      yield* exchange.setPermanentFault(FakeFault.Status({ status: 502 }))
      const statuses: Array<string> = []
      for (let i = 0; i < 10; i++) statuses.push(summary(yield* send(exchange)))
      expect(new Set(statuses)).toEqual(new Set(["Response:502"]))
      yield* exchange.setPermanentFault(undefined)
      // The ten faulted requests reached the server, so the window is full.
      expect(summary(yield* send(exchange))).toBe("Response:429")
      yield* TestClock.adjust(1000)
      expect(summary(yield* send(exchange))).toBe("Response:200")
    })
  )
})

describe("FakeExchange random faults", () => {
  const run = (seed: number, rate: number) =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ rateLimit: false, faults: { random: { rate, seed } } })
      return yield* sendMany(exchange, 300)
    })

  it.effect("are seeded: the same seed gives the same faults, at about the rate", () =>
    Effect.gen(function* () {
      const a = yield* run(7, 0.3)
      const b = yield* run(7, 0.3)
      const c = yield* run(8, 0.3)
      expect(a).toEqual(b)
      expect(a).not.toEqual(c)
      const faulted = a.filter((s) => s !== "Response:200").length
      expect(faulted).toBeGreaterThan(60)
      expect(faulted).toBeLessThan(120)
      expect(new Set(a)).toEqual(
        new Set([
          "Response:200",
          "Response:500",
          "Response:502",
          "Response:503",
          "Response:429",
          "Reset",
          "Truncated:200"
        ])
      )
      expect(new Set(yield* run(1, 0))).toEqual(new Set(["Response:200"]))
    })
  )

  it.effect("use the given mix and can be changed or cleared at runtime", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({ rateLimit: false })
      yield* exchange.setRandomFaults({ rate: 1, mix: [{ fault: FakeFault.Reset(), weight: 1 }] })
      expect(new Set(yield* sendMany(exchange, 20))).toEqual(new Set(["Reset"]))
      yield* exchange.clearFaults
      expect(new Set(yield* sendMany(exchange, 20))).toEqual(new Set(["Response:200"]))
    })
  )

  it.effect("reset clears the log and counters and restores the configured faults", () =>
    Effect.gen(function* () {
      const exchange = yield* FakeExchange.make({
        rateLimit: false,
        faults: { scripted: [{ nth: 1, fault: FakeFault.Status({ status: 500 }) }] }
      })
      expect(yield* sendMany(exchange, 2)).toEqual(["Response:500", "Response:200"])
      yield* exchange.reset
      expect(yield* exchange.requests).toEqual([])
      expect((yield* exchange.stats).requests).toBe(0)
      expect(yield* sendMany(exchange, 2)).toEqual(["Response:500", "Response:200"])
    })
  )
})
