/**
 * A SQLite store keeps its connections: a write transaction (a lease taken, a page committed, a
 * lease let go) runs on the transactions' connection, kept from one to the next, not on a new one.
 * libsql closes a connection's file handles only when the garbage collector finalizes it, so a
 * connection per transaction held two file descriptors (the file and its WAL) per write until a
 * collection that a small heap may not make for thousands of writes: a long first sync then
 * failed with "unable to open database file" where a process may hold 1,024. The process's open
 * descriptors are read from /proc (Linux, where CI runs; elsewhere the test is skipped).
 */
import { BillsApi, FundingBillsPage } from "@account-bills/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as StoreAccount from "../src/StoreAccount.js"
import * as StoreLayer from "../src/StoreLayer.js"
import * as Sync from "../src/Sync.js"

const onLinux = fs.existsSync("/proc/self/fd")
const openDescriptors = () => fs.readdirSync("/proc/self/fd").length

// A source that answers at once with nothing new: each sync is a steady pass's, two write
// transactions (the lease taken with the state, the page committed with the lease let go).
const source = BillsApi.fromOperations({
  fetchFunding: () =>
    Effect.succeed(new FundingBillsPage({ items: [], total: 0, hasNextPage: false, page: 1, pageSize: 100 })),
  fetchSpot: () => Effect.succeed([])
})

describe("a SQLite store's connections", () => {
  it.effect.skipIf(!onLinux)("300 syncs hold no more file descriptors than the first one did", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-connections-"))
    const file = path.join(dir, "bills.sqlite")
    const account = StoreAccount.make(Redacted.make("connections"), "main")
    const sync = Sync.run({ account, kinds: ["funding", "spot"], countStored: false })
    return Effect.gen(function* () {
      yield* sync
      const before = openDescriptors()
      for (let i = 0; i < 300; i++) yield* sync
      // 1,200 write transactions: a new connection for each held 2,400 descriptors.
      expect(openDescriptors() - before).toBeLessThan(10)
    }).pipe(
      Effect.provide(
        Layer.merge(StoreLayer.layer({ _tag: "Sqlite", path: file, display: file }), Layer.succeed(BillsApi, source))
      ),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  })
})
