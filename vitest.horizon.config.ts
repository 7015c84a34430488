import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the quick tests of the five files `pnpm
// mutate:horizon` mutates (issue 28). Left out: the property tests and the long walks of
// StreamsWalk and StreamsSpotEdge, and every test that runs a child process, which cannot kill a
// mutant. On two shared cores every mutant costs seconds of vitest overhead on top of the tests
// that cover it, so `HORIZON_FILE=<name>` runs one file's mutants against its own tests alone
// (e.g. `HORIZON_FILE=spotWalk pnpm mutate:horizon --mutate packages/core/src/internal/spotWalk.ts`):
// the streams' tests also reach the spot step, and would run for every one of its mutants.
const tests = {
  spotWalk: ["streams/SpotWalkStep", "streams/SpotWalkEdges", "streams/SpotPlan"],
  fundingStream: [
    "streams/StreamsFundingGuards",
    "streams/StreamsFundingReadAhead",
    "streams/StreamsFutureWindow",
    "streams/StreamsHorizon",
    "pipeline/ApiV3"
  ],
  historyRule: ["streams/HistoryRule", "streams/StreamsHorizon"],
  envelopeV3: ["pipeline/ApiV3", "pipeline/WrongVersion", "pipeline/ResilienceErrors"],
  errorReason: ["pipeline/ApiV3", "pipeline/ResilienceErrors"]
} satisfies Record<string, ReadonlyArray<string>>

const chosen = Object.entries(tests).filter(([file]) => [undefined, file].includes(process.env.HORIZON_FILE))

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [...new Set(chosen.flatMap(([, files]) => files))].map((file) => `packages/core/test/${file}.test.ts`)
  }
})
