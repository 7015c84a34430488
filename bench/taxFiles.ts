/**
 * The tax files' figure: exporting 100,000 bills from a store to each tax tool's format takes at
 * most 2 x the same `--format csv` export from the store (goal of issue 34). The store is synced
 * from a local exchange with linked bills (trades as two legs, transfers with both legs) and no
 * rate limit; each export writes to /dev/null, in process, the way `bills export --db` runs it.
 * Run by bench/run.ts as section 13 (`--only tax`).
 */
import { TaxFiles } from "@account-bills/books"
import * as Effect from "effect/Effect"
import { taxExport } from "../packages/node/src/cli/TaxExport.js"
import { type Timing, withStoreExports } from "./storeExports.js"

export interface TaxFigures {
  readonly bills: number
  readonly csv: Timing
  readonly formats: ReadonlyArray<readonly [TaxFiles.TaxFormat, Timing]>
}

/** Syncs `bills` linked bills into a fresh SQLite store, then times csv and each format in turn (median of `runs`). */
export const taxBench = (bills: number, runs = 3): Promise<TaxFigures> =>
  withStoreExports({ bills, seed: 34, runs, name: "tax" }, ({ turns }) =>
    Effect.gen(function* () {
      const { csv, exports } = yield* turns(
        TaxFiles.taxFormats.map(
          (format) => [format, taxExport({ format, account: "all", out: "/dev/null", strict: false })] as const
        )
      )
      return { bills, csv, formats: exports }
    })
  )
