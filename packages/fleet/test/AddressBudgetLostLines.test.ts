/**
 * What a runner says when its shared budget's Redis goes away and comes back: one warning when it
 * is lost and one when it is back, however many reconnections the client tries in between, and
 * so again at the next outage. Redis is cut off through a TCP proxy (connections reset, new ones
 * refused) for half a second, twice.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { redisBudget } from "./support/redisBudget.js"
import { redisUrl } from "./support/services.js"
import { scopedProxy, through } from "./support/tcpProxy.js"

describe.skipIf(redisUrl === undefined)("the shared budget's lost and back lines", () => {
  it.live("one line when lost and one when back, at each outage", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const proxy = yield* scopedProxy(redisUrl ?? "")
      const budget = yield* redisBudget(through(redisUrl ?? "", proxy.port), {
        limit: 10,
        window: "100 millis",
        address: `lost-lines-${process.pid}-${Date.now()}`
      }).pipe(
        Effect.provide(
          Logger.replace(
            Logger.defaultLogger,
            Logger.make(({ message }) => void lines.push(String(message)))
          )
        )
      )
      for (let outage = 0; outage < 2; outage++) {
        yield* budget.withGrant("spotBills")(Effect.void)
        yield* Effect.promise(() => proxy.cut())
        // The client tries again every 50, 100, 150 … ms: several failed reconnections.
        yield* Effect.sleep("600 millis")
        yield* Effect.promise(() => proxy.restore())
        yield* budget.withGrant("spotBills")(Effect.void).pipe(Effect.timeout("5 seconds"), Effect.orDie)
      }
      const said = lines.filter((line) => line.startsWith("the shared budget at"))
      const kinds = said.map((line) =>
        line.includes(" is lost (") ? "lost" : line.endsWith(" is back") ? "back" : line
      )
      expect(kinds).toEqual(["lost", "back", "lost", "back"])
      expect(said[0]).toContain(`redis://127.0.0.1:${proxy.port}`)
      expect(said[0]).toContain("no request goes out until it is back")
    }).pipe(Effect.scoped)
  )
})
