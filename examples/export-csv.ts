/**
 * Example: export the spot bills of a date range to a CSV file, from a program.
 *
 *   WEEX_API_KEY=… WEEX_API_SECRET=… WEEX_API_PASSPHRASE=… \
 *     pnpm tsx examples/export-csv.ts 2024-05-01 2024-06-01 may.csv
 */
import { exportBills, NodeBillsApi } from "@account-bills/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"

/** Writes every spot bill of [from, to) to `out` as CSV and returns the summary. */
export const exportMonthCsv = (from: Date, to: Date, out: string) =>
  exportBills(
    { account: "spot", format: "csv", from: from.getTime(), to: to.getTime(), out },
    { live: false, requests: Effect.succeed(0) }
  )

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [from = "2024-05-01", to = "2024-06-01", out = "bills.csv"] = process.argv.slice(2)
  exportMonthCsv(new Date(from), new Date(to), out).pipe(
    Effect.tap((summary) => Effect.log(`${summary.bills} bills written to ${out}`)),
    Effect.provide(NodeBillsApi.layerConfig()),
    NodeRuntime.runMain
  )
}
