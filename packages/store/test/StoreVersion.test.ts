/**
 * The store's schema version read while the store is in use (`StoreVersion`): a writer that opened
 * the store at this release's version learns that a later release has migrated it since, the way
 * a fleet's runner looks during an upgrade one runner at a time. The later release is played by
 * a raw client that records one migration more, as the Migrator of that release would.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { migrationsTable } from "../src/internal/migrations.js"
import { StoreTooNew } from "../src/StoreErrors.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as StoreVersion from "../src/StoreVersion.js"
import { engines } from "./support/engines.js"
import { withRaw } from "./support/rawClient.js"

for (const engine of engines) {
  describe(`StoreVersion on ${engine.name}`, () => {
    it.effect("a store reads as this release's version until a later release migrates it", () =>
      Effect.gen(function* () {
        const target = yield* engine.fresh
        // Made by this release.
        yield* Effect.scoped(Layer.build(StoreLayer.forTarget(target, { create: true })))
        const ask = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
          withRaw(target, (sql) => Effect.provideService(effect, SqlClient.SqlClient, sql))
        expect(yield* ask(StoreVersion.read(target.display))).toBe(StoreVersion.known)
        yield* ask(StoreVersion.check(target.display))
        // The next release's runner, beside this one, migrates the store.
        yield* withRaw(
          target,
          (sql) =>
            sql`INSERT INTO ${sql(migrationsTable)} (migration_id, name) VALUES (${StoreVersion.known + 1}, 'next_release')`
        )
        expect(yield* ask(StoreVersion.read(target.display))).toBe(StoreVersion.known + 1)
        const found = yield* ask(Effect.flip(StoreVersion.check(target.display)))
        expect(found).toEqual(
          new StoreTooNew({ target: target.display, version: StoreVersion.known + 1, supported: StoreVersion.known })
        )
        expect(found.message).toContain(
          `schema version ${StoreVersion.known + 1}, newer than the ${StoreVersion.known} this version`
        )
      })
    )
  })
}
