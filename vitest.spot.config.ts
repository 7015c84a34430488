import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the spot pool's tests: what `pnpm mutate:spot`
// runs against each mutant of the plan and the runner (the whole suite's first run alone takes
// longer than all of these mutants).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["packages/core/test/streams/SpotPlan.test.ts", "packages/core/test/streams/StreamsSpot*.test.ts"]
  }
})
