/**
 * The requests of a first sync through the fleet's passes (bench/run.ts section 9): one
 * account's passes until current, counted by the exchange, per 100 bills stored, on v2 and v3,
 * at 0 and 150 ms round trips; then the passes after 1,000 new bills. Side by side: the runner's
 * default (one page at a time: every request a page kept) and the default of before issue 29
 * (9 in flight per kind, as `bills sync`), whose read-ahead a pass threw away at its page bound.
 */
import { Effect } from "effect"
import { type KeptFigures, measureKept } from "../packages/fleet/test/support/keptRequests.js"

export interface KeptRow {
  readonly apiVersion: "v2" | "v3"
  readonly roundTripMillis: number
  readonly variant: "default" | "before (9 in flight)"
  readonly figures: KeptFigures
}

/** Measures every case; undefined without PostgreSQL. */
export const keptBench = async (quick: boolean): Promise<ReadonlyArray<KeptRow> | undefined> => {
  const postgresUrl = process.env.ACCOUNT_BILLS_PG_URL
  if (!postgresUrl) return undefined
  const counts = quick ? { funding: 1_000, spot: 2_000 } : { funding: 3_000, spot: 8_000 }
  const cases = quick
    ? ([{ apiVersion: "v2", roundTripMillis: 0 }] as const)
    : ([
        { apiVersion: "v2", roundTripMillis: 0 },
        { apiVersion: "v2", roundTripMillis: 150 },
        { apiVersion: "v3", roundTripMillis: 0 },
        { apiVersion: "v3", roundTripMillis: 150 }
      ] as const)
  const rows: Array<KeptRow> = []
  for (const { apiVersion, roundTripMillis } of cases) {
    for (const variant of ["before (9 in flight)", "default"] as const) {
      const figures = await Effect.runPromise(
        Effect.scoped(
          measureKept({
            postgresUrl,
            apiVersion,
            roundTripMillis,
            concurrency: variant === "default" ? undefined : 9,
            ...counts
          })
        )
      )
      rows.push({ apiVersion, roundTripMillis, variant, figures })
    }
  }
  return rows
}
