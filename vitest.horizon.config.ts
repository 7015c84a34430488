import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the quick tests of the five files `pnpm
// mutate:horizon` mutates (issue 28): the spot step, the funding stream, the history rule, the v3
// envelope and the error reasons. Left out: the property tests and the long walks of
// StreamsWalk and StreamsSpotEdge (each mutant they cover would run them for seconds; the whole
// run must fit in about an hour on two shared cores) and every test that runs a child process,
// which cannot kill a mutant.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "packages/core/test/streams/SpotWalkStep.test.ts",
      "packages/core/test/streams/SpotWalkEdges.test.ts",
      "packages/core/test/streams/SpotPlan.test.ts",
      "packages/core/test/streams/HistoryRule.test.ts",
      "packages/core/test/streams/StreamsFundingGuards.test.ts",
      "packages/core/test/streams/StreamsFundingReadAhead.test.ts",
      "packages/core/test/streams/StreamsFutureWindow.test.ts",
      "packages/core/test/streams/StreamsHorizon.test.ts",
      "packages/core/test/pipeline/ApiV3.test.ts",
      "packages/core/test/pipeline/WrongVersion.test.ts",
      "packages/core/test/pipeline/ResilienceErrors.test.ts"
    ]
  }
})
