/**
 * How the `bills` bin is bundled, shared by the published build (`bundle-bin.ts`) and the bundle
 * the process tests start (`test/support/billsBin.ts`), so that tests run the program as it ships.
 */
import type * as esbuild from "esbuild"
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
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

/**
 * Builds the bin twice: first beside `outdir`, to render `bills --help` with it (plain, and with
 * colours as `FORCE_COLOR` asks), then into `outdir` with that text defined as `BILLS_TOP_HELP`,
 * which the entry prints for `--help` alone without loading the program. The text is the
 * program's own output, so it cannot drift from what the program prints.
 */
export const buildWithTopHelp = async <R>(
  build: (outdir: string, define: Record<string, string>) => Promise<R>,
  outdir: string
): Promise<R> => {
  const first = `${outdir}.help`
  try {
    await build(first, {})
    const render = (env: Record<string, string>) =>
      execFileSync(process.execPath, [path.join(first, "bills.js"), "--help"], {
        env: { PATH: process.env.PATH ?? "", ...env },
        encoding: "utf8"
      })
    const text = { plain: render({ NO_COLOR: "1" }), colour: render({ FORCE_COLOR: "1" }) }
    return await build(outdir, { BILLS_TOP_HELP: JSON.stringify(text) })
  } finally {
    rmSync(first, { recursive: true, force: true })
  }
}
