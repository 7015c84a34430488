import { defineConfig } from "vitest/config"
import base from "./vitest.config.js"

// The repo's vitest settings, restricted to the fleet tests that run the budget, the pass, the
// status and the metrics server in this process: what `pnpm mutate:fleet` runs against each
// mutant (a runner in a child process does not see which mutant is active, so a test that only
// watches child processes cannot kill one). They need PostgreSQL and Redis: run under
// .ci/postgres and .ci/redis. Each mutant costs tens of seconds here (real servers, windows of
// 1–2 s), so `FLEET_FILE=<name>` runs one file's mutants against its own tests alone:
// `FLEET_FILE=FleetStatus pnpm mutate:fleet --mutate packages/fleet/src/FleetStatus.ts`.
const tests = {
  AddressBudget: [
    "FleetRequestsKept",
    "AddressBudgetMemory",
    "AddressBudgetQueue",
    "AddressBudgetRestart",
    "AddressBudgetGiveUp",
    "AddressBudgetTurns",
    "AddressBudgetLoss",
    "AddressBudgetWaits",
    "AddressBudgetPing",
    "AddressBudgetSpan",
    "AddressBudgetFailing",
    "AddressBudgetLostLines"
  ],
  AccountPass: ["FleetRequestsKept", "AccountPass"],
  FleetStatus: ["FleetStatusValues"],
  FleetObservability: ["FleetReadiness", "FleetMetricsValues"]
} satisfies Record<string, ReadonlyArray<string>>

const chosen = Object.entries(tests).filter(([file]) => [undefined, file].includes(process.env.FLEET_FILE))

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [...new Set(chosen.flatMap(([, files]) => files))].map((file) => `packages/fleet/test/${file}.test.ts`)
  }
})
