import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// Tests run the workspace packages from their sources: the "@account-bills/source" export
// condition (also in tsconfig's customConditions and tsx's --conditions) picks src/*.ts.
// The rest is Vite's default server conditions, which setting the list would otherwise drop.
const conditions = ["@account-bills/source", "module", "node", "development|production"]

export default defineConfig({
  resolve: { conditions },
  // Vitest hands the server conditions to Node (--conditions) for the dependencies it leaves to
  // Node: "module" there picks @opentelemetry/api's ESM build, whose imports name no file
  // extension and so do not load. Node alone (as `bills` runs) never uses "module".
  ssr: { resolve: { conditions: conditions.filter((condition) => condition !== "module") } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    // The `bills` program the process tests start, and the view's page, bundled once per run from
    // the sources.
    globalSetup: ["packages/node/test/support/billsBin.ts", "packages/view/test/support/pageBundle.ts"],
    testTimeout: 60_000,
    // Vitest leaves a core to its main process; most of the long files wait (on child
    // processes, servers, databases) rather than compute, so a worker per core finishes sooner.
    maxWorkers: Math.max(2, availableParallelism())
  }
})
