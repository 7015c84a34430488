/**
 * Every file the books write that carries a time (the three tax files and the three journals),
 * over events set at instants a time zone would move to another day: 23:30 and 00:30 UTC, the
 * hours around New York's change to daylight time (2025-03-09 07:00 UTC) and back, and a bill at
 * 18:29:59.999 UTC (midnight at +05:30 one millisecond later). Run as a script it prints them as
 * JSON, so a test can run it under another `TZ` and compare the bytes.
 */
import * as Effect from "effect/Effect"
import { Journal, type Ledger, LedgerEvents, TaxFiles } from "../../src/index.js"
import { entriesAt } from "./ledgerEntries.js"

/** The instants, in UTC, written out. */
export const instants: ReadonlyArray<string> = [
  "2025-03-08T23:30:00.000Z",
  "2025-03-09T00:30:00.000Z",
  "2025-03-09T06:59:59.999Z",
  "2025-03-09T07:00:00.000Z",
  "2025-03-09T18:29:59.999Z",
  "2025-11-02T05:30:00.000Z",
  "2025-11-02T06:30:00.000Z"
]

const entries = (): ReadonlyArray<Ledger.LedgerEntry> => {
  const list: Array<Ledger.LedgerEntry> = []
  instants.forEach((iso, i) => {
    const { funding, spot } = entriesAt(Date.parse(iso))
    // Fixed ids, so two processes write the same bytes.
    const id = (n: number) => String(800_000_000_000_000_000n + BigInt(i * 10 + n))
    list.push(
      funding({
        billId: id(0),
        coinName: "USDT",
        bizType: "deposit",
        deltaAmount: "100",
        afterAmount: String(100 * (i + 1))
      }),
      spot({ billId: id(1), coinName: "BTC", bizType: "trade_out", deltaAmount: "-1", fillSize: "1", fillValue: "9" }),
      spot({ billId: id(2), coinName: "WXT", bizType: "mystery_thing", deltaAmount: "3" })
    )
  })
  return list
}

/** The files, by name: `koinly.csv` ..., `hledger.journal` ... */
export const writtenFiles = (): Record<string, string> =>
  Effect.runSync(
    Effect.gen(function* () {
      const events = yield* LedgerEvents.fromEntries(entries(), {
        feeRules: { spot: "delta-includes-fees", funding: "delta-includes-fees" }
      })
      const files: Record<string, string> = {}
      for (const format of TaxFiles.taxFormats) files[`${format}.csv`] = [...TaxFiles.lines(format, events)].join("")
      for (const format of ["hledger", "ledger", "beancount"] as const) {
        files[`${format}.journal`] = (yield* Journal.write(format, events)).text
      }
      return files
    })
  )

if (process.argv[1]?.endsWith("writtenTimes.ts")) process.stdout.write(JSON.stringify(writtenFiles()))
