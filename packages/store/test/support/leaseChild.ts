/**
 * One lease holder in a process of its own, for the fence test:
 * `tsx leaseChild.ts PG_URL OWNER LEASE_MS BILL_ID CURSOR FINISHED_FROM FINISHED_TO [PAUSE_MS]`.
 * Waits for the lease of `main` spot, prints `leased`, waits `PAUSE_MS` (default 0), commits one
 * page (one bill, and the window it finished), then prints `committed N` or `busy`.
 */
import { SpotBillFromWire } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { BillsStore } from "../../src/BillsStore.js"
import * as StoreLayer from "../../src/StoreLayer.js"

const [url = "", owner = "", lease = "1000", billId = "1", cursor = "", from = "0", to = "0", pause = "0"] =
  process.argv.slice(2)

const bill = Schema.decodeUnknownSync(SpotBillFromWire)({
  billId,
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  deltaAmount: "1",
  afterAmount: "1",
  fees: "0",
  cTime: "1000"
})

const program = Effect.gen(function* () {
  const store = yield* BillsStore
  while (!(yield* store.acquireLease("main", "spot", owner, Number(lease))).acquired) yield* Effect.sleep("20 millis")
  process.stdout.write("leased\n")
  yield* Effect.sleep(Number(pause))
  const outcome = yield* Effect.either(
    store.commitPage({
      account: "main",
      kind: "spot",
      owner,
      leaseMillis: Number(lease),
      bills: [bill],
      cursor,
      finished: { from: Number(from), to: Number(to) },
      order: "newest-first"
    })
  )
  process.stdout.write(outcome._tag === "Right" ? `committed ${outcome.right}\n` : `${outcome.left._tag}\n`)
}).pipe(Effect.provide(StoreLayer.forTarget({ _tag: "Postgres", url, display: "test" }, { create: false })))

Effect.runPromiseExit(program).then((exit) => {
  if (exit._tag === "Failure") process.stderr.write(`lease child failed: ${String(exit.cause)}\n`)
  process.exit(exit._tag === "Success" ? 0 : 1)
})
