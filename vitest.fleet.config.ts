import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the fleet tests that run the budget and the pass in
// this process: what `pnpm mutate:fleet` runs against each mutant (a runner in a child process
// does not see which mutant is active, so the process tests cannot kill one). They need
// PostgreSQL and Redis: run under .ci/postgres and .ci/redis.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "packages/fleet/test/FleetRequestsKept.test.ts",
      "packages/fleet/test/AddressBudgetMemory.test.ts",
      "packages/fleet/test/AddressBudgetQueue.test.ts",
      "packages/fleet/test/AddressBudgetRestart.test.ts",
      "packages/fleet/test/AddressBudgetGiveUp.test.ts"
    ]
  }
})
