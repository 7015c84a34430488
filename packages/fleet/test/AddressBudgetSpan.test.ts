/**
 * Each grant of `AddressBudget.layerRedis` is traced: an `AddressBudget.grant` span per request,
 * with its operation, so a trace shows how long a request waited on the shared budget.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"
import { recordingSpans } from "../../core/test/support/recordedSpans.js"
import { redisBudget } from "./support/redisBudget.js"
import { redisUrl } from "./support/services.js"

describe.skipIf(redisUrl === undefined)("the shared budget's grant span", () => {
  it.live("one AddressBudget.grant span per grant, with its operation", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.Span> = []
      const address = `span-${process.pid}-${Date.now()}`
      const budget = yield* redisBudget(redisUrl ?? "", { limit: 4, window: "1 second", address })
      const grants = Effect.all([
        budget.withGrant("spotBills")(Effect.void),
        budget.withGrant("contractBills")(Effect.void)
      ])
      yield* grants.pipe(recordingSpans(spans))
      const granted = spans.filter((span) => span.name === "AddressBudget.grant")
      expect(granted.map((span) => span.attributes.get("operation"))).toEqual(["spotBills", "contractBills"])
      expect(granted.every((span) => span.status._tag === "Ended")).toBe(true)
    }).pipe(Effect.scoped)
  )
})
