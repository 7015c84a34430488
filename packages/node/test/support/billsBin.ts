/**
 * The `bills` program the process tests spawn: the sources of every workspace package, bundled
 * once per vitest run (a global setup) the way `scripts/bundle-bin.ts` bundles the published bin.
 *
 * Why not tsx: under tsx every start of `bills` resolves and transforms hundreds of modules
 * through its loader, about 3 s on two cores against 0.7 s for the bundle, and the CLI and fleet
 * tests start `bills` a few hundred times. The bundle holds the same sources, so a change to
 * them is tested in the next run.
 *
 * The database drivers stay out of the bundle, as in the published bin (libsql loads a native
 * engine), but here they are imported by absolute path from where the store's own install holds
 * them: the bundle lives inside packages/node, whose install does not carry them. Written to a
 * directory of its own per run under packages/node/.test-bin (so that the bundle's
 * `createRequire` finds `@account-bills/node` and `@account-bills/fleet` from there, and two
 * runs side by side do not share one), removed at the end of the run.
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { binBundleOptions, buildWithTopHelp } from "../../scripts/binBundleOptions.js"

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const drivers = /^(libsql|@libsql\/|pg$|pg\/|pg-)/

/** Imports a driver from where its importer's install has it, outside the bundle. */
const driversInPlace: esbuild.Plugin = {
  name: "drivers-in-place",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (!drivers.test(args.path) || args.pluginData === "in-place") return undefined
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "in-place"
      })
      return resolved.errors.length > 0 ? { errors: resolved.errors } : { path: resolved.path, external: true }
    })
  }
}

/**
 * Bundles `bills` from the sources into a directory of its own under packages/node/.test-bin,
 * `plugins` run before the drivers' (the upgrade check's next release adds a migration with
 * one); its entry, and how to remove it.
 */
export const bundleBills = async (
  plugins: ReadonlyArray<esbuild.Plugin> = []
): Promise<{ readonly entry: string; readonly remove: () => void }> => {
  const base = path.join(packageRoot, ".test-bin")
  fs.mkdirSync(base, { recursive: true })
  const outdir = fs.mkdtempSync(path.join(base, "run-"))
  await buildWithTopHelp(
    (into, define) =>
      esbuild.build({
        ...binBundleOptions(packageRoot),
        outdir: into,
        define,
        plugins: [...plugins, driversInPlace]
      }),
    outdir
  )
  return { entry: path.join(outdir, "bills.js"), remove: () => fs.rmSync(outdir, { recursive: true, force: true }) }
}

/**
 * Vitest's global setup: bundles `bills` and sets `BILLS_TEST_BIN` to its entry (the test workers
 * start after it, with its environment); removes the bundle after the run.
 */
export default async function setup() {
  const bundle = await bundleBills()
  process.env.BILLS_TEST_BIN = bundle.entry
  return bundle.remove
}

/**
 * The arguments to `node` that start `bills`: this run's bundle under vitest; outside it (the
 * bench's runners), the sources under tsx.
 */
export const billsCommand = (): ReadonlyArray<string> => {
  const bundle = process.env.BILLS_TEST_BIN
  return bundle !== undefined
    ? [bundle]
    : ["--conditions=@account-bills/source", "--import", "tsx", path.join(packageRoot, "src/bin/bills.ts")]
}
