/**
 * SIGKILL at random (seeded) moments: a sync in a child process is killed several times in the
 * middle of its pages, then let finish. The store must then hold exactly the exchange's bills,
 * field for field: none missing, none twice.
 */
import { FakeExchangeServer } from "@account-bills/node"
import { Prng } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { BillsApi } from "@account-bills/core"
import * as Redacted from "effect/Redacted"
import { FakeExchange } from "@account-bills/core/testing"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { BillsStore } from "../src/BillsStore.js"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreBillsApi from "../src/StoreBillsApi.js"
import * as StoreLayer from "../src/StoreLayer.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "../../..")
const child = path.join(here, "support/syncChild.ts")
const seed = Number(process.env.ACCOUNT_BILLS_CRASH_SEED ?? 20_251_123)
const kills = 6

interface Run {
  readonly pages: number
  readonly killed: boolean
  readonly code: number | null
}

/** Runs the child; kills it with SIGKILL `delayMs` after its `killAtPage`-th page line, if given. */
const runChild = (store: string, url: string, kill: { readonly page: number; readonly delayMs: number } | undefined) =>
  Effect.async<Run>((resume) => {
    // Node itself with tsx as a loader: the `tsx` command would run the sync in a grandchild
    // that a SIGKILL of its parent leaves running.
    const proc = spawn(
      process.execPath,
      ["--conditions=@account-bills/source", "--import", "tsx", child, store, url, "1500", "20"],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let pages = 0
    let killed = false
    let stderr = ""
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    proc.stdout.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) {
        if (!line.startsWith("page ")) continue
        pages += 1
        if (kill !== undefined && pages === kill.page && !killed) {
          killed = true
          setTimeout(() => proc.kill("SIGKILL"), kill.delayMs)
        }
      }
    })
    proc.on("exit", (code) => {
      if (code !== 0 && code !== null) process.stderr.write(stderr)
      resume(Effect.succeed({ pages, killed: killed && code === null, code }))
    })
    return Effect.sync(() => proc.kill("SIGKILL"))
  })

describe("crash safety", () => {
  it.live(
    "a sync killed with SIGKILL at random moments, then finished, holds exactly the exchange's bills",
    () =>
      Effect.gen(function* () {
        const server = yield* FakeExchangeServer.make({
          rateLimit: false,
          generate: { seed, funding: 5_000, spot: 8_000, contract: 6_000, sameMillisecondGroup: { every: 40, size: 5 } }
        })
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-crash-"))
        const store = path.join(dir, "bills.sqlite")
        const prng = Prng.make(seed)
        const runs: Array<Run> = []
        for (let i = 0; i < kills; i++) {
          // 190 pages in all, the three kinds at once at 20 requests per second each: a kill after
          // 1 to 12 pages of each run, plus up to 30 ms, lands anywhere in a page's life.
          const kill = { page: 1 + prng.int(12), delayMs: prng.int(30) }
          runs.push(yield* runChild(store, server.url, kill))
        }
        const last = yield* runChild(store, server.url, undefined)
        expect(last.code).toBe(0)

        const expected = {
          funding: (yield* server.exchange.bills("funding")).map((bill) => JSON.stringify(bill)),
          spot: (yield* server.exchange.bills("spot")).map((bill) => JSON.stringify(bill)),
          contract: (yield* server.exchange.contractBills).map((bill) => bill.billId)
        }
        const account = StoreAccount.make(Redacted.make(FakeExchange.defaultCredentials.apiKey), "crash")
        const stored = yield* Effect.gen(function* () {
          const api = yield* BillsApi
          const lines = (stream: Stream.Stream<{ readonly raw: unknown }, unknown>) =>
            Effect.map(Stream.runCollect(stream), (chunk) => Array.from(chunk, (bill) => JSON.stringify(bill.raw)))
          const counts = yield* BillsStore
          return {
            funding: yield* lines(api.streamFundingBills()),
            spot: yield* lines(api.streamSpotBills()),
            contract: yield* lines(api.streamContractBills()),
            rows:
              (yield* counts.count(account.id, "funding")) +
              (yield* counts.count(account.id, "spot")) +
              (yield* counts.count(account.id, "contract"))
          }
        }).pipe(
          Effect.provide(StoreBillsApi.layer(account.id)),
          Effect.provide(StoreLayer.layer({ _tag: "Sqlite", path: store, display: store }))
        )
        // The futures account's records go out under the interface's names: checked by id.
        const storedContract = stored.contract.map((line) => String(JSON.parse(line).billId))
        const all = [...stored.funding, ...stored.spot, ...storedContract]
        const want = new Set([...expected.funding, ...expected.spot, ...expected.contract])
        const missing = [...want].filter((line) => !all.includes(line)).length
        const duplicated = all.length - new Set(all).size
        const killed = runs.filter((run) => run.killed).length
        console.log(
          `crash test (seed ${seed}): ${killed} kills (${runs.map((r) => `${r.killed ? "killed" : `exit ${r.code}`} after ${r.pages} pages`).join(", ")}), ` +
            `${want.size} bills at the exchange, ${stored.rows} rows stored, ${missing} missing, ${duplicated} duplicated`
        )
        expect(killed).toBeGreaterThanOrEqual(kills - 1)
        expect(missing).toBe(0)
        expect(duplicated).toBe(0)
        expect(stored.rows).toBe(want.size)
        expect([...stored.funding].sort()).toEqual([...expected.funding].sort())
        expect([...stored.spot].sort()).toEqual([...expected.spot].sort())
        expect([...storedContract].sort()).toEqual([...expected.contract].sort())
        expect(storedContract.length).toBeGreaterThanOrEqual(6_000)
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
})
