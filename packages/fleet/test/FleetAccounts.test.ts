/**
 * Credentials at rest: sealed with AES-256-GCM, nothing secret in clear in the database, `add`
 * with an existing label replaces, and a wrong key or a row moved to another label does not open.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { FleetAccounts, FleetCipher, FleetDatabase, FleetKeyInvalid } from "../src/index.js"
import { statementsOf } from "../../store/test/support/statements.js"
import { freshDatabase, postgresUrl, testKey } from "./support/services.js"

const credentials = (n: number) => ({
  apiKey: Redacted.make(`the-api-key-${n}`),
  secret: Redacted.make(`the-secret-${n}`),
  passphrase: Redacted.make(`the-passphrase-${n}`)
})

const open = (db: string, key: string) =>
  Layer.merge(Layer.provide(FleetDatabase.accounts(db), FleetDatabase.sql(db)), FleetDatabase.sql(db)).pipe(
    Layer.provide(FleetCipher.layer(Redacted.make(key)))
  )

describe("FleetCipher", () => {
  it.effect("refuses a key that is not 32 bytes of base64, saying why and not what", () =>
    Effect.gen(function* () {
      const short = yield* Effect.flip(FleetCipher.make(Redacted.make(Buffer.alloc(16, 1).toString("base64"))))
      expect(short).toBeInstanceOf(FleetKeyInvalid)
      expect(short.message).toContain("16 bytes long, not 32")
      const text = yield* Effect.flip(FleetCipher.make(Redacted.make("not base64 at all!")))
      expect(text.message).not.toContain("not base64 at all")
    })
  )

  it.effect("opens what it sealed for the same label only", () =>
    Effect.gen(function* () {
      const cipher = yield* FleetCipher.make(Redacted.make(testKey))
      const sealed = yield* cipher.seal("a", credentials(1))
      const opened = yield* cipher.open("a", sealed)
      expect(Redacted.value(opened.secret)).toBe("the-secret-1")
      expect((yield* Effect.flip(cipher.open("b", sealed)))._tag).toBe("FleetCredentialsUnreadable")
      const other = yield* FleetCipher.make(Redacted.make(Buffer.alloc(32, 9).toString("base64")))
      expect((yield* Effect.flip(other.open("a", sealed)))._tag).toBe("FleetCredentialsUnreadable")
    })
  )
})

describe.skipIf(postgresUrl === undefined)("FleetAccounts on PostgreSQL", () => {
  it.live("keeps no secret in clear, replaces on add, and lists without credentials", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        expect(yield* accounts.add("desk", credentials(1))).toBe("added")
        expect(yield* accounts.add("desk", credentials(2))).toBe("replaced")
        const opened = yield* accounts.open("desk")
        expect(Redacted.value(opened.credentials.apiKey)).toBe("the-api-key-2")
        expect(Redacted.value(opened.credentials.passphrase)).toBe("the-passphrase-2")
        // The store keeps the label's rows under the fingerprint of the key first added.
        expect(opened.account.id).toBe("desk")
        const sql = yield* SqlClient.SqlClient
        const dump = JSON.stringify(yield* sql`SELECT * FROM fleet_accounts`)
        for (const n of [1, 2]) {
          for (const secret of [`the-api-key-${n}`, `the-secret-${n}`, `the-passphrase-${n}`]) {
            expect(dump).not.toContain(secret)
          }
        }
        expect((yield* accounts.list).map((account) => account.label)).toEqual(["desk"])
        expect(JSON.stringify(yield* accounts.list)).not.toContain("the-")
        expect(yield* accounts.remove("desk")).toBe(true)
        expect(yield* accounts.remove("desk")).toBe(false)
        expect((yield* Effect.flip(accounts.open("desk")))._tag).toBe("FleetAccountUnknown")
      }).pipe(Effect.provide(open(db, testKey)))
      // Another key cannot open what this one sealed.
      yield* Effect.gen(function* () {
        yield* (yield* FleetAccounts).add("other", credentials(3))
      }).pipe(Effect.provide(open(db, testKey)))
      const wrong = yield* Effect.flip(
        Effect.flatMap(FleetAccounts, (accounts) => accounts.open("other")).pipe(
          Effect.provide(open(db, Buffer.alloc(32, 1).toString("base64")))
        )
      )
      expect(wrong._tag).toBe("FleetCredentialsUnreadable")
      expect(wrong.message).not.toContain("the-secret-3")
    })
  )

  it.live("a runner's open claims the account in the statement that reads it", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        yield* accounts.add("desk", credentials(1))
        expect((yield* accounts.list)[0]?.owner).toBeUndefined()
        // A runner opens the account for every pass: one statement reads it and names the runner.
        const { result, sent } = yield* statementsOf(accounts.open("desk", "127.0.0.1:34431"))
        expect(Redacted.value(result.credentials.apiKey)).toBe("the-api-key-1")
        expect(sent).toHaveLength(1)
        expect((yield* accounts.list)[0]?.owner).toBe("127.0.0.1:34431")
        // Opened without an owner (a command, a test): read only.
        yield* accounts.release("desk", "127.0.0.1:34431")
        yield* accounts.open("desk")
        expect((yield* accounts.list)[0]?.owner).toBeUndefined()
        expect((yield* Effect.flip(accounts.open("gone", "127.0.0.1:34431")))._tag).toBe("FleetAccountUnknown")
      }).pipe(Effect.provide(open(db, testKey)))
    })
  )

  it.live("a clean pass of a clean account records nothing; a failure, a refusal and their clearing do", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        yield* accounts.add("desk", credentials(1))
        const runner = "127.0.0.1:34431"
        const pass = (errors: Parameters<typeof accounts.record>[1], refused: boolean) =>
          Effect.zipRight(accounts.open("desk", runner), statementsOf(accounts.record("desk", errors, refused)))
        const row = Effect.map(accounts.list, (rows) => rows[0]?.errors)
        // Nothing failed before, nothing failed now: no write.
        const clean = yield* pass({ funding: undefined, spot: undefined, contract: undefined }, false)
        expect([clean.result, clean.sent]).toEqual([0, []])
        // A failure is written, and so is the clean pass that clears it.
        const failed = yield* pass({ funding: undefined, spot: "the exchange is away", contract: undefined }, false)
        expect(failed.sent).toHaveLength(1)
        expect((yield* row)?.spot).toBe("the exchange is away")
        const cleared = yield* pass({ funding: undefined, spot: undefined, contract: undefined }, false)
        expect(cleared.sent).toHaveLength(1)
        expect((yield* row)?.spot).toBeUndefined()
        // A refusal counts, and the clean pass after it sets the count back to 0 in a write.
        const refused = yield* pass({ funding: "refused", spot: "refused" }, true)
        expect([refused.result, refused.sent.length]).toEqual([1, 1])
        const back = yield* pass({ funding: undefined, spot: undefined }, false)
        expect([back.result, back.sent.length]).toEqual([0, 1])
        expect(yield* row).toEqual({ funding: undefined, spot: undefined, contract: undefined })
        // A record without a runner's open before it (the reconciler's) always writes.
        const unopened = yield* statementsOf(accounts.record("desk", { funding: undefined }))
        expect(unopened.sent).toHaveLength(1)
      }).pipe(Effect.provide(open(db, testKey)))
    })
  )
})
