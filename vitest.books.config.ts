import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the books' own tests, for `pnpm mutate:books` (the
// pairing of events, the tax files and the journals, issue 53). Left out: the time-zone test,
// which starts node processes (a child does not see which mutant is active, so it cannot kill
// one), and the deprecated path's re-exports. `BOOKS_FILE=<dir>` (ledger, journal, contract)
// runs one folder's tests alone; `quick` and `hard` the lists below; several, comma-separated.
// `BOOKS_FILE=quick` keeps the tests of a second or less a run (the boundaries, the tax files'
// layouts and Types, the journals' names and suspense): a mutant the properties and the walks
// over the fake exchange cover costs them whole otherwise, 15 s and more on two shared cores.
const folders = ["ledger", "journal", "contract"]
const quick = [
  "ledger/Boundaries",
  "ledger/TaxFiles",
  "ledger/TaxRowTypes",
  "ledger/NoFillData",
  "journal/Journal",
  "journal/JournalNames",
  "journal/JournalSuspense",
  "journal/AccountNames",
  "journal/JournalPlan"
]
/** The generated hard cases end to end (issue 53), a few seconds a run. */
const hard = ["ledger/HardCases", "journal/HardCaseJournals"]
const asked = process.env.BOOKS_FILE?.split(",")
const chosen = folders.filter((folder) => asked === undefined || asked.includes(folder))
const named = [...(asked?.includes("quick") ? quick : []), ...(asked?.includes("hard") ? hard : [])]

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      ...named.map((name) => `packages/books/test/${name}.test.ts`),
      ...chosen.map((folder) => `packages/books/test/${folder}/*.test.ts`)
    ],
    exclude: ["packages/books/test/ledger/TimeZones.test.ts"]
  }
})
