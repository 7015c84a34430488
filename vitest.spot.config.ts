import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the spot pool's quick tests: what `pnpm mutate:spot`
// runs against each mutant of the plan and the runner. The whole suite's first run alone takes
// longer than all of these mutants, and the long exports (StreamsSpotPoolCuts, ...Resume) cover
// every line of the plan, so each mutant would run them for minutes.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "packages/core/test/streams/SpotPlan.test.ts",
      "packages/core/test/streams/StreamsSpotEdge.test.ts",
      "packages/core/test/streams/StreamsSpotPoolBuffer.test.ts",
      "packages/core/test/streams/StreamsSpotProperty.test.ts"
    ]
  }
})
