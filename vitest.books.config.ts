import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the books' own tests, for `pnpm mutate:books` (the
// pairing of events, the tax files and the journals, issue 53). Left out: the time-zone test,
// which starts node processes (a child does not see which mutant is active, so it cannot kill
// one), and the deprecated path's re-exports. `BOOKS_FILE=<dir>` (ledger, journal, contract)
// runs one folder's tests alone, to keep a run on one file short.
const folders = ["ledger", "journal", "contract"]
const chosen = folders.filter((folder) => [undefined, folder].includes(process.env.BOOKS_FILE))

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: chosen.map((folder) => `packages/books/test/${folder}/*.test.ts`),
    exclude: ["packages/books/test/ledger/TimeZones.test.ts"]
  }
})
