/**
 * What a fleet pass that finds nothing makes the Effect runtime do (issue 38, section 3, fifth
 * round): the fibers it forks, counted with a `Supervisor`, and the spans it makes, through the
 * real HttpClient pipeline against the loopback exchange. The pass's client is made as plain
 * effects, not layers: built as layers (their scope, memo map and parallel merges) it forked 7
 * fibers more per pass and allocated about a quarter of the pass's garbage
 * (bench/passWork.ts). Made without the signer's layer, the pass still redacts the ACCESS-*
 * headers wherever the platform shows them: the `http.client` span's attributes.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Tracer from "effect/Tracer"
import { AddressBudget } from "../src/index.js"
import { counted, Forks } from "./support/runtimeWork.js"
import { oneSteadyAccount, passOf } from "./support/seededFleet.js"
import { postgresUrl } from "./support/services.js"

const keys = { apiKey: "k-work", secret: "s-work", passphrase: "p-work" }

describe.skipIf(postgresUrl === undefined)("the runtime's work in a fleet pass that finds nothing", () => {
  it.live("forks no fiber for its client, and redacts the signature headers in the HTTP spans", () =>
    Effect.gen(function* () {
      const { database, exchange } = yield* oneSteadyAccount("work", keys)
      yield* Effect.gen(function* () {
        const pass = yield* passOf("work", exchange.url)
        // The first sync, then a pass to settle (the limiter trusts its rule by then).
        yield* pass
        yield* pass
        const forks = new Forks()
        const spans: Array<Tracer.Span> = []
        const outcomes = yield* counted(pass, forks, (span) => spans.push(span))
        expect(outcomes.map((kind) => [kind.kind, kind.done, kind.added, kind.requests, kind.error])).toEqual([
          ["funding", true, 0, 1, undefined],
          ["spot", true, 0, 1, undefined],
          ["contract", true, 0, 1, undefined]
        ])
        // Per kind: its fiber and the request's; one more for the pass. The request timeout's
        // timer and the lease's first renewal are the event loop's timers, not fibers, and the
        // read-ahead buffer (two fibers a kind) starts with a walk's third pull. With the buffer
        // from the first: 13; with a renewal fiber per lease as well: 16; with the timeout raced
        // against a forked timer too: 19; with the client built as layers: 26.
        expect(forks.count).toBeLessThanOrEqual(7)
        const http = spans.filter((span) => span.name.startsWith("http.client"))
        expect(http).toHaveLength(3)
        for (const span of http) {
          for (const name of ["access-key", "access-sign", "access-passphrase"]) {
            expect(span.attributes.get(`http.request.header.${name}`)).toBe("<redacted>")
          }
        }
      }).pipe(Effect.provide(Layer.mergeAll(database, AddressBudget.layerNone, NodeHttpClient.layerUndici)))
    }).pipe(Effect.scoped)
  )
})
