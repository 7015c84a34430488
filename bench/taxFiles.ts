/**
 * The tax files' figure: exporting 100,000 bills from a store to each tax tool's format takes at
 * most 2 x the same `--format csv` export from the store (goal of issue 34). The store is synced
 * from a local exchange with linked bills (trades as two legs, transfers with both legs) and no
 * rate limit; each export writes to /dev/null, in process, the way `bills export --db` runs it.
 * Run by bench/run.ts as section 13 (`--only tax`).
 */
import { TaxFiles } from "@account-bills/core"
import * as Effect from "effect/Effect"
import { taxExport } from "../packages/node/src/cli/TaxExport.js"
import { withStoreExports } from "./storeExports.js"

export interface TaxFigures {
  readonly bills: number
  readonly csvSeconds: number
  readonly formats: ReadonlyArray<{ readonly format: TaxFiles.TaxFormat; readonly seconds: number }>
}

/** Syncs `bills` linked bills into a fresh SQLite store, then times each export (median of `runs`). */
export const taxBench = (bills: number, runs = 3): Promise<TaxFigures> =>
  withStoreExports({ bills, seed: 34, runs, name: "tax" }, ({ csvSeconds, fromStore, timed }) =>
    Effect.gen(function* () {
      const formats: Array<{ format: TaxFiles.TaxFormat; seconds: number }> = []
      for (const format of TaxFiles.taxFormats) {
        const seconds = yield* timed(fromStore(taxExport({ format, account: "all", out: "/dev/null", strict: false })))
        formats.push({ format, seconds })
      }
      return { bills, csvSeconds, formats }
    })
  )
