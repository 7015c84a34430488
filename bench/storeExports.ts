/**
 * The harness the exports built on events share (tax files, journals): a fresh SQLite store synced
 * from a local exchange of linked bills (trades as two legs, transfers with both legs) with no
 * rate limit, the `--format csv` export from it as the yardstick, and a timer that takes turns.
 * The exports run in process, the way `bills export --db` runs them.
 *
 * Each export and the csv yardstick run in turn (csv, a, b, csv, a, b, ...), and each figure is the
 * median of its runs, so a load that comes and goes on a shared machine falls on every format alike
 * instead of on whichever ran last. Beside the wall time, the process's CPU time (user + system,
 * `process.cpuUsage`) of each run: the export is one thread in this process, so on a quiet machine
 * the two agree, and under load the CPU time still tells what the export costs.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BillsApi } from "@account-bills/core"
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreBillsApi, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { exportBills } from "../packages/node/src/cli/ExportBills.js"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** The median wall and CPU seconds of an export's runs. */
export interface Timing {
  readonly seconds: number
  readonly cpuSeconds: number
}

/** What a bench gets: the store's folder, the store as a `BillsApi`, and the turns timer. */
export interface StoreExports {
  readonly dir: string
  readonly fromStore: <A, E>(effect: Effect.Effect<A, E, BillsApi>) => Effect.Effect<A, unknown>
  /**
   * Runs the csv export and each of `exports` in turn, `runs` rounds; the csv's timing and each
   * export's, by name, in the order given.
   */
  readonly turns: <K extends string>(
    exports: ReadonlyArray<readonly [K, Effect.Effect<unknown, unknown, BillsApi>]>
  ) => Effect.Effect<{ readonly csv: Timing; readonly exports: ReadonlyArray<readonly [K, Timing]> }, unknown>
}

/** Syncs `bills` linked bills (seed `seed`) into a fresh store, runs `use` with the turns timer, removes the store. */
export const withStoreExports = <A>(
  options: { readonly bills: number; readonly seed: number; readonly runs: number; readonly name: string },
  use: (exports: StoreExports) => Effect.Effect<A, unknown>
): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { bills, runs } = options
      const server = yield* FakeExchangeServer.make({
        rateLimit: false,
        generate: {
          seed: options.seed,
          funding: Math.round(bills * 0.4),
          spot: bills - Math.round(bills * 0.4),
          linked: true
        }
      })
      const dir = mkdtempSync(join(tmpdir(), `account-bills-bench-${options.name}-`))
      const store = StoreLayer.layerFrom(join(dir, "bills.sqlite"))
      const account = StoreAccount.make(credentials.apiKey, "bench")
      yield* Sync.run({ account }).pipe(
        Effect.provide(NodeBillsApi.layer(credentials, { config: { baseUrl: server.url } })),
        Effect.provide(store)
      )
      const fromStore = <B, E>(effect: Effect.Effect<B, E, BillsApi>) =>
        effect.pipe(Effect.provide(StoreBillsApi.layer(account.id)), Effect.provide(store))
      const once = (effect: Effect.Effect<unknown, unknown, BillsApi>) =>
        Effect.gen(function* () {
          const cpu = process.cpuUsage()
          const started = performance.now()
          yield* fromStore(effect)
          const used = process.cpuUsage(cpu)
          return { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 }
        })
      const csv = exportBills(
        { account: "all", format: "csv", out: "/dev/null" },
        { live: false, requests: () => Effect.succeed(0) }
      )
      const turns = <K extends string>(
        exports: ReadonlyArray<readonly [K, Effect.Effect<unknown, unknown, BillsApi>]>
      ) =>
        Effect.gen(function* () {
          const all: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown, BillsApi>]> = [
            ["csv", csv],
            ...exports
          ]
          const runsOf = all.map(() => [] as Array<Timing>)
          for (let round = 0; round < runs; round++) {
            for (const [index, [, effect]] of all.entries()) runsOf[index]?.push(yield* once(effect))
          }
          const timingOf = (index: number): Timing => ({
            seconds: median((runsOf[index] ?? []).map((run) => run.seconds)),
            cpuSeconds: median((runsOf[index] ?? []).map((run) => run.cpuSeconds))
          })
          return {
            csv: timingOf(0),
            exports: exports.map(([name], index) => [name, timingOf(index + 1)] as const)
          }
        })
      const result = yield* use({ dir, fromStore, turns })
      rmSync(dir, { recursive: true, force: true })
      return result
    }).pipe(Effect.scoped)
  )
