/**
 * Two and three `bills sync` processes started together on one SQLite file, several rounds on a
 * seeded schedule. Every process must end within its bound (a hang fails the test instead of
 * stalling it), each either completes or fails with the one-line `SyncBusy` error, the store
 * then holds exactly the exchange's bills, and a final sync completes with nothing new.
 */
import { BillsApi } from "@account-bills/core"
import { FakeExchange, Prng } from "@account-bills/core/testing"
import { BillsStore, StoreAccount, StoreBillsApi, StoreLayer } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileExchange } from "./support/fileExchange.js"
import { type CliResult, exchangeEnv, startCli } from "./support/runCli.js"

const seed = Number(process.env.ACCOUNT_BILLS_LOCK_SEED ?? 20_261_123)
/** Far beyond a sync of this exchange (a few seconds); a process still running then is stuck. */
const boundMillis = 90_000

const server = fileExchange({
  rateLimit: false,
  generate: { seed, funding: 300, spot: 600, sameMillisecondGroup: { every: 30, size: 4 } }
})

const env = () => exchangeEnv(server.url)

interface Ended extends CliResult {
  readonly hung: boolean
}

/** `bills sync` on `db`, started `delayMs` from now; SIGKILLed and marked hung past the bound. */
const boundedSync = (db: string, delayMs: number) =>
  new Promise<Ended>((resolve) => {
    setTimeout(() => {
      const run = startCli(["sync", "--db", db, "--max-rps", "50"], env())
      let hung = false
      const bound = setTimeout(() => {
        hung = true
        run.child.kill("SIGKILL")
      }, boundMillis)
      void run.result.then((result) => {
        clearTimeout(bound)
        resolve({ ...result, hung })
      })
    }, delayMs)
  })

/** What the store holds, read back through the library: each bill's raw record, and the row count. */
const stored = (db: string) => {
  const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), undefined)
  return Effect.runPromise(
    Effect.gen(function* () {
      const api = yield* BillsApi
      const store = yield* BillsStore
      const lines = (stream: Stream.Stream<{ readonly raw: unknown }, unknown>) =>
        Effect.map(Stream.runCollect(stream), (chunk) => Array.from(chunk, (bill) => JSON.stringify(bill.raw)))
      return {
        funding: yield* lines(api.streamFundingBills()),
        spot: yield* lines(api.streamSpotBills()),
        rows: (yield* store.count(account.id, "funding")) + (yield* store.count(account.id, "spot"))
      }
    }).pipe(
      Effect.provide(StoreBillsApi.layer(account.id)),
      Effect.provide(StoreLayer.layer({ _tag: "Sqlite", path: db, display: db }))
    )
  )
}

const busyLine =
  /^bills: another sync of \S+ (funding|spot|contract) bills is running on this store \(its lease runs to [^)]+\); wait for it to finish$/

describe("bills sync, several processes at once on one SQLite file", () => {
  it("every process ends, completing or failing with the one-line SyncBusy error, and the store holds exactly the exchange's bills", async () => {
    const prng = Prng.make(seed)
    const expected = {
      funding: (await Effect.runPromise(server.exchange.bills("funding"))).map((bill) => JSON.stringify(bill)),
      spot: (await Effect.runPromise(server.exchange.bills("spot"))).map((bill) => JSON.stringify(bill))
    }
    const figures: Array<string> = []
    for (const processes of [2, 3, 2, 3]) {
      const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-sync-lock-")), "bills.sqlite")
      // Started in the same tick, or up to 40 ms apart: each round lands the processes on a
      // different instant of each other's opening, migration, lease and page commits.
      const delays = Array.from({ length: processes }, () => (prng.int(2) === 0 ? 0 : prng.int(40)))
      const ended = await Promise.all(delays.map((delay) => boundedSync(db, delay)))
      figures.push(`${processes} processes at +${delays.join("/")} ms: exits ${ended.map((e) => e.code).join(",")}`)
      const hung = ended.filter((result) => result.hung)
      expect(
        hung.map((result) => result.stderr),
        `syncs hung (seed ${seed}); their stderr`
      ).toEqual([])
      for (const result of ended) {
        if (result.code === 0) {
          expect(result.stderr).toMatch(/funding: \d+ new bills/)
          expect(result.stderr).toMatch(/spot: \d+ new bills/)
        } else {
          expect(result.code, result.stderr).toBe(1)
          expect(result.stderr.trimEnd().split("\n"), result.stderr).toHaveLength(1)
          expect(result.stderr.trimEnd()).toMatch(busyLine)
        }
      }
      expect(ended.some((result) => result.code === 0)).toBe(true)

      const held = await stored(db)
      expect(held.rows).toBe(expected.funding.length + expected.spot.length)
      expect([...held.funding].sort()).toEqual([...expected.funding].sort())
      expect([...held.spot].sort()).toEqual([...expected.spot].sort())

      const final = await boundedSync(db, 0)
      expect(final.hung).toBe(false)
      expect(final.code, final.stderr).toBe(0)
      expect(final.stderr).toContain("funding: 0 new bills")
      expect(final.stderr).toContain("spot: 0 new bills")
    }
    console.log(`concurrent syncs (seed ${seed}): ${figures.join("; ")}`)
  }, 600_000)
})
