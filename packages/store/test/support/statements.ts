/**
 * The statements node-postgres sends while an effect runs, counted where they leave (issue 38,
 * section 3): through the whole stack above it (Sync, the store, a fleet's pass, @effect/sql).
 */
import { createRequire } from "node:module"
import * as Effect from "effect/Effect"

/** node-postgres as @effect/sql-pg loads it: one module, so its client's prototype is the one used. */
const pg = createRequire(createRequire(import.meta.url).resolve("@effect/sql-pg"))("pg") as {
  readonly Client: { readonly prototype: { query: (...args: ReadonlyArray<unknown>) => unknown } }
}

/** The statements node-postgres sends while `effect` runs, whitespace folded, in order. */
export const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const sent: Array<string> = []
      const original = pg.Client.prototype.query
      pg.Client.prototype.query = function (this: unknown, ...args: ReadonlyArray<unknown>) {
        const [config] = args
        const text = typeof config === "string" ? config : (config as { readonly text?: string } | undefined)?.text
        sent.push((text ?? "").replace(/\s+/g, " ").trim())
        return Reflect.apply(original, this, args)
      }
      return { sent, original }
    }),
    ({ sent }) => Effect.map(effect, (result) => ({ result, sent })),
    ({ original }) =>
      Effect.sync(() => {
        pg.Client.prototype.query = original
      })
  )
