/**
 * How the `bills` bin is bundled, shared by the published build (`bundle-bin.ts`) and the bundle
 * the process tests start (`test/support/billsBin.ts`), so that tests run the program as it ships.
 */
import type * as esbuild from "esbuild"
import * as path from "node:path"

/** esbuild's options for the bin of the package at `packageRoot`; the caller adds where and what stays out. */
export const binBundleOptions = (packageRoot: string) =>
  ({
    entryPoints: { bills: path.join(packageRoot, "src/bin/bills.ts") },
    bundle: true,
    // `import()` in cli/*Command.ts: a subcommand's code loads only when that subcommand runs.
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The workspace's packages from their sources, like tests and tsx scripts.
    conditions: ["@account-bills/source"],
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
    banner: {
      // The shebang comes from src/bin/bills.ts. CommonJS dependencies (undici) call require on
      // node builtins, which an ESM bundle has to provide.
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);'
    }
  }) satisfies esbuild.BuildOptions
