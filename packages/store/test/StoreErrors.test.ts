import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as os from "node:os"
import * as path from "node:path"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as StoreTarget from "../src/StoreTarget.js"
import { engines } from "./support/engines.js"
import { withRaw } from "./support/rawClient.js"

const open = (target: StoreTarget.StoreTarget) =>
  Effect.provide(
    Effect.map(BillsStore, (store) => store.target),
    StoreLayer.layer(target)
  )

describe("store targets", () => {
  it.effect("a URL with a password is refused, and the password appears nowhere", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(StoreTarget.parse("postgres://alice:s3cr3t-pw@127.0.0.1:5432/bills"))
      expect(error._tag).toBe("StorePasswordInUrl")
      expect(error.message).toBe(
        "refusing the database URL postgres://alice@127.0.0.1:5432/bills: it carries a password; remove it from the URL and set PGPASSWORD instead"
      )
      expect(JSON.stringify(error)).not.toContain("s3cr3t")
      expect(String(error)).not.toContain("s3cr3t")
    })
  )

  it.effect("a path, or a URL without password, is taken as it is", () =>
    Effect.gen(function* () {
      expect(yield* StoreTarget.parse("data/bills.sqlite")).toEqual({
        _tag: "Sqlite",
        path: "data/bills.sqlite",
        display: "data/bills.sqlite"
      })
      expect((yield* StoreTarget.parse("postgresql://alice@db.internal/bills"))._tag).toBe("Postgres")
    })
  )

  it.effect("a SQLite path that cannot be opened fails with StoreUnavailable naming it", () =>
    Effect.gen(function* () {
      const file = path.join(os.tmpdir(), `account-bills-missing-${process.pid}`, "no", "bills.sqlite")
      const error = yield* Effect.flip(open({ _tag: "Sqlite", path: file, display: file }))
      expect(error._tag).toBe("StoreUnavailable")
      expect(error.message).toMatch(new RegExp(`^cannot use the store ${file}: .+`))
    })
  )
})

for (const engine of engines) {
  describe(`store schema on ${engine.name}`, () => {
    it.effect("a store written by a newer schema version is refused, and left as it is", () =>
      Effect.gen(function* () {
        const target = yield* engine.fresh
        yield* open(target)
        yield* withRaw(
          target,
          (sql) => sql`INSERT INTO account_bills_migrations (migration_id, name) VALUES (7, 'from the future')`
        )
        const error = yield* Effect.flip(open(target))
        expect(error._tag).toBe("StoreTooNew")
        expect(error.message).toBe(
          `the store ${target.display} has schema version 7, newer than the 4 this version of account-bills knows; upgrade account-bills`
        )
      })
    )
  })
}
