/**
 * Whether an account's loop of passes holds on to anything pass after pass (issue 38, section 3,
 * eighth round): one runner in this process passes 4 current accounts every 100 ms for
 * `seconds`, and the heap after a full collection is printed every 10 s. A loop that keeps
 * something per pass grows by it at every line.
 *
 *   bash .ci/postgres pnpm tsx --expose-gc --conditions=@account-bills/source bench/loopHeap.ts [seconds]
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { AddressBudget, FleetCipher, FleetDatabase, FleetRunner } from "../packages/fleet/src/index.js"
import * as FleetExchange from "../packages/fleet/test/support/FleetExchange.js"
import { freePorts } from "../packages/fleet/test/support/ports.js"
import { addAccounts, freshDatabase, testKey } from "../packages/fleet/test/support/services.js"
import { passesEnded } from "../packages/fleet/test/support/runtimeWork.js"

const seconds = Number(process.argv[2] ?? 120)
const accounts = 4
const credentialsOf = (i: number) => ({ apiKey: `k-heap-${i}`, secret: `s-${i}`, passphrase: `p-${i}` })
const gc = (globalThis as { gc?: () => void }).gc

const main = Effect.gen(function* () {
  const pg = process.env.ACCOUNT_BILLS_PG_URL
  if (pg === undefined || gc === undefined) return yield* Effect.dieMessage("needs .ci/postgres and --expose-gc")
  const now = Date.now()
  const exchange = yield* FleetExchange.serve({
    perAddress: false,
    accounts: Array.from({ length: accounts }, (_, i) => ({
      credentials: credentialsOf(i),
      rateLimit: false,
      generate: { seed: 40 + i, funding: 50, spot: 50, startMillis: now - 86_400_000, endMillis: now - 60_000 }
    }))
  })
  const db = yield* freshDatabase(pg)
  const database = FleetDatabase.layer(db).pipe(Layer.provideMerge(FleetCipher.layer(Redacted.make(testKey))))
  yield* addAccounts(accounts, (i) => `heap-${i}`, credentialsOf).pipe(Effect.provide(database))
  const [port] = yield* freePorts(1)
  const runner = FleetRunner.layer({
    db,
    port,
    interval: Duration.millis(100),
    maxRps: 1_000,
    config: { baseUrl: exchange.url }
  }).pipe(Layer.provide(AddressBudget.layerNone), Layer.provide(FleetCipher.layer(Redacted.make(testKey))), Layer.orDie)
  yield* Effect.forkScoped(Layer.launch(runner))
  // The first syncs (the futures walk proves its empty years) before the first line.
  yield* Effect.sleep("20 seconds")
  for (let at = 0; at <= seconds; at += 10) {
    gc()
    const heap = process.memoryUsage().heapUsed / 1024 / 1024
    console.log(
      `${String(at).padStart(4)} s  passes ${String(yield* passesEnded).padStart(6)}  heap ${heap.toFixed(1)} MiB`
    )
    yield* Effect.sleep("10 seconds")
  }
}).pipe(Effect.scoped)

Effect.runPromise(main).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
