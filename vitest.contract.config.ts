import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the futures account's own tests, for `pnpm
// mutate:contract` (the contract walk, the crowded millisecond's cursor and the exact numbers,
// issue 33). The stream tests of funding and spot also pass through the contract walk's shared
// spot code, but not through these three files.
// `CONTRACT_TESTS=quick` keeps the tests of a second or less a run (the crowded millisecond's
// own, the calls, the amounts, the answers without `hasNextPage`): every mutant the walks' long
// tests and properties cover otherwise costs them whole, some 15 s each (issue 53).
const quick = ["CrowdedMillisecond", "ContractCalls", "ContractAmounts", "ExactNumbers", "NoHasNextPage"]

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // The ledger over the futures account went to the books with its test (issue 50).
    include:
      process.env.CONTRACT_TESTS === "quick"
        ? quick.map((name) => `packages/core/test/contract/${name}.test.ts`)
        : ["packages/core/test/contract/*.test.ts", "packages/books/test/contract/*.test.ts"]
  }
})
