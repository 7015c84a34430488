import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the futures account's own tests, for `pnpm
// mutate:contract` (the contract walk, the crowded millisecond's cursor and the exact numbers,
// issue 33). The stream tests of funding and spot also pass through the contract walk's shared
// spot code, but not through these three files.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // The ledger over the futures account went to the books with its test (issue 50).
    include: ["packages/core/test/contract/*.test.ts", "packages/books/test/contract/*.test.ts"]
  }
})
