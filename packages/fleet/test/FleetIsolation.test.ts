/**
 * One account never stops the others, and its failure is seen. Labels are checked at `add`;
 * among good accounts a runner meets an account with a label of 500 characters (a row made before
 * labels were checked), one whose credentials do not decrypt with its BILLS_FLEET_KEY, and one
 * whose secret the exchange refuses. Every good account is brought current; `status` shows the two
 * failures with how long they have lasted; the refused one backs off instead of being tried at
 * every interval; each failed pass is one warning line that gives its reason.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import {
  FleetAccounts,
  FleetCipher,
  FleetDatabase,
  FleetLabelInvalid,
  FleetRunner,
  FleetStatus,
  labelRule
} from "../src/index.js"
import { freePorts } from "./support/ports.js"
import { bills, scopedBills } from "./support/runnerProcess.js"
import { seededFleet } from "./support/seededFleet.js"
import { freshDatabase, postgresUrl, redactedOf, redisUrl, testKey } from "./support/services.js"

const day = 86_400_000
const credentialsOf = (i: number) => ({ apiKey: `iso-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const redacted = (i: number, secret?: string) => redactedOf(credentialsOf(i), secret)
const longLabel = `a${"x".repeat(499)}`

describe("refusedBackoff", () => {
  it("doubles from the interval with each refused pass, up to an hour", () => {
    expect([0, 1, 2, 3, 4].map((n) => FleetRunner.refusedBackoff(60_000, n))).toEqual([
      60_000, 60_000, 120_000, 240_000, 480_000
    ])
    expect(FleetRunner.refusedBackoff(60_000, 30)).toBe(3_600_000)
    expect(FleetRunner.refusedBackoff(7_200_000, 5)).toBe(7_200_000)
  })
})

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("one account never stops the others", () => {
  it.live("labels are checked at add: the rule is named, nothing is written", () =>
    Effect.gen(function* () {
      const db = yield* freshDatabase(postgresUrl ?? "")
      const database = FleetDatabase.layer(db).pipe(Layer.provide(FleetCipher.layer(Redacted.make(testKey))))
      yield* Effect.gen(function* () {
        const accounts = yield* FleetAccounts
        for (const bad of [longLabel, `o"brien`, "café", "", " space", "tab\tlabel", "-dash-first"]) {
          const failed = yield* Effect.flip(accounts.add(bad, redacted(0)))
          expect(failed).toBeInstanceOf(FleetLabelInvalid)
          expect(failed.message).toContain(labelRule)
        }
        expect(yield* accounts.add("Acct_1.main@desk+2", redacted(0))).toBe("added")
        expect((yield* accounts.list).map((account) => account.label)).toEqual(["Acct_1.main@desk+2"])
      }).pipe(Effect.provide(database))
      const cli = bills("add", ["add", "--db", db, "--label", `o"brien`], {
        BILLS_FLEET_KEY: testKey,
        WEEX_API_KEY: "k",
        WEEX_API_SECRET: "s",
        WEEX_API_PASSPHRASE: "p"
      })
      expect(yield* Effect.promise(() => cli.exited)).toBe(2)
      expect(cli.stderr()).toContain("is not allowed: a label is 1 to 64 characters")
    })
  )

  it.live(
    "a 500-character label, credentials that do not decrypt and a refused secret among good accounts",
    () =>
      Effect.gen(function* () {
        // The accounts' rows are written below, some as an older version wrote them.
        const { db, now, exchange, database } = yield* seededFleet({
          accounts: 5,
          labelOf: (i) => `iso-${i}`,
          credentialsOf,
          perAddress: false,
          added: false,
          exchangeOf: (i, now) => ({
            generate: { seed: 70 + i, funding: 120, spot: 160, startMillis: now - 3 * day, endMillis: now - 60_000 }
          })
        })
        const good = ["good-1", "good-2", longLabel]
        yield* Effect.gen(function* () {
          const accounts = yield* FleetAccounts
          const cipher = yield* FleetCipher
          const sql = yield* SqlClient.SqlClient
          yield* accounts.add("good-1", redacted(0))
          yield* accounts.add("good-2", redacted(1))
          yield* accounts.add("refused", redacted(3, "not-the-secret"))
          yield* accounts.add("unreadable", redacted(4))
          // Rows as an older version wrote them: a label of 500 characters, and sealed credentials
          // this BILLS_FLEET_KEY does not open.
          const sealed = yield* cipher.seal(longLabel, redacted(2))
          yield* sql`INSERT INTO fleet_accounts (label, fingerprint, sealed, added_at, updated_at)
            VALUES (${longLabel}, ${"fp-long"}, ${sealed}, ${now}, ${now})`
          yield* sql`UPDATE fleet_accounts SET sealed = ${"v1.AAAA.BBBB.CCCC"} WHERE label = 'unreadable'`
        }).pipe(Effect.provide(database))

        const [port = 0] = yield* freePorts(1)
        const runner = yield* scopedBills("iso", ["run", "--db", db, "--port", String(port), "--interval", "1s"], {
          BILLS_FLEET_KEY: testKey,
          WEEX_BASE_URL: exchange.url
        })
        const settled = Effect.gen(function* () {
          const rows = yield* FleetStatus.all
          const byLabel = new Map(rows.map((row) => [row.label, row]))
          const current = good.every((label, i) => {
            const row = byLabel.get(label)
            return row !== undefined && row.funding.bills === 120 && row.spot.bills === 160 && i >= 0
          })
          const seen = ["refused", "unreadable"].every(
            (label) => byLabel.get(label)?.funding.error != null && byLabel.get(label)?.spot.error != null
          )
          return current && seen
        }).pipe(Effect.provide(database))
        const deadline = Date.now() + 60_000
        while (!(yield* settled) && Date.now() < deadline) yield* Effect.sleep("250 millis")
        const begins = (label: string) =>
          runner.events.filter((event) => event.account === label && event.event === "begins").map((e) => e.at)
        // Then passes enough to see the refused account back off.
        while (begins("refused").length < 4 && Date.now() < deadline + 30_000) yield* Effect.sleep("250 millis")

        const rows = yield* FleetStatus.all.pipe(Effect.provide(database))
        const byLabel = new Map(rows.map((row) => [row.label, row]))
        for (const label of good) {
          expect(byLabel.get(label)?.funding.bills, label.slice(0, 20)).toBe(120)
          expect(byLabel.get(label)?.spot.bills, label.slice(0, 20)).toBe(160)
          expect(byLabel.get(label)?.funding.error).toBeNull()
        }
        const refused = byLabel.get("refused")
        expect(refused?.funding.error).toContain("Authentication")
        expect(refused?.funding.errorSince).toBeTypeOf("number")
        expect(byLabel.get("unreadable")?.spot.error).toContain("do not decrypt with this BILLS_FLEET_KEY")
        // One warning line per failed pass, with its reason.
        const log = runner.stderr()
        expect(log).toMatch(/level=WARN[^\n]*pass ends: funding failed: [^\n]*account=refused/)
        // Refused credentials back off: the wait from one pass's end to the next one's begin
        // doubles (1 s, 2 s, 4 s), where a good account is passed every second. The waits, not
        // the gaps between begins: a busy machine stretches each pass's own time.
        const ends = runner.events.filter((event) => event.account === "refused" && event.event === "ends")
        const waits = begins("refused")
          .slice(1, 4)
          .map((at) => at - Math.max(...ends.filter((end) => end.at <= at).map((end) => end.at)))
        console.info(`isolation test: waits between the refused account's passes ${waits.join(", ")} ms`)
        expect(waits).toHaveLength(3)
        expect(waits[2]).toBeGreaterThanOrEqual(3_500)
        expect(waits[2]).toBeGreaterThan(1.5 * (waits[0] ?? 0))
      }).pipe(Effect.scoped),
    120_000
  )
})
