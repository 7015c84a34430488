/**
 * Bundles the `bills` bin into dist/bin: one ESM entry with a shebang, and the code only a
 * subcommand needs in chunks loaded by that subcommand (`import()` in cli/*Command.ts), so
 * `bills --help` parses a few hundred kilobytes instead of resolving hundreds of modules.
 *
 * Everything is bundled but the database drivers, effect and the store's own code included: the
 * bin is an application, so it carries the exact versions it was tested with and starts without
 * resolving the user's peers. The drivers (SQLite's native engine, pg) are what makes a store
 * heavy; they come from the user's install of `@account-bills/store`, an optional peer, and only
 * `sync` and `--db` load them (cli/StoreModule.ts says what to install when they are missing).
 *
 * `bills fleet` is the exception: its command line (cli/FleetCli.ts) is a bundle of its own,
 * dist/bin/fleet.js, that runs on the user's install of `@account-bills/fleet` (an optional peer,
 * with the cluster, Redis and OpenTelemetry behind it) and therefore on the user's `effect`, the one
 * the fleet runs on; it carries only what the fleet's install does not (`@effect/cli`). The bin
 * imports it by its path, and only when `bills fleet` runs.
 */
import * as esbuild from "esbuild"
import { chmodSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { binBundleOptions, buildWithTopHelp } from "./binBundleOptions.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outdir = path.join(root, "dist/bin")
const fleetCli = path.join(root, "src/cli/FleetCli.ts")

/**
 * main.ts's `import("./FleetCli.js")` left to run time, as the path of dist/bin/fleet.js seen
 * from the chunk that holds main.ts (chunks/, checked below once the bin is written).
 */
const fleetApart: esbuild.Plugin = {
  name: "fleet-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/FleetCli\.js$/ }, async (args) => {
      if (args.pluginData === "fleet-apart") return undefined
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "fleet-apart"
      })
      return resolved.path === fleetCli ? { path: "../fleet.js", external: true } : undefined
    })
  }
}

const result = await buildWithTopHelp(
  (into, define) =>
    esbuild.build({
      ...binBundleOptions(root),
      outdir: into,
      define,
      minify: true,
      // No source map: it would be ten times the bundle, and failures reach the user as one line.
      sourcemap: false,
      // The drivers of @account-bills/store (and of its SQL clients), none of which uses effect: an
      // install without the store carries none of them.
      // The fleet is a package of its own, loaded by `bills fleet` from the user's install.
      external: ["@libsql/client", "libsql", "pg", "pg-connection-string", "pg-cursor", "@account-bills/fleet"],
      outExtension: { ".js": ".js" },
      metafile: true,
      plugins: [fleetApart]
    }),
  outdir
)

// The fleet's command line on the user's effect, @effect/platform(-node), client and fleet:
// everything those packages are is left to the install (a second copy of effect would not share
// the fleet's Context tags and schemas); @effect/cli and what it needs come bundled.
const fleetResult = await esbuild.build({
  ...binBundleOptions(root),
  entryPoints: { fleet: fleetCli },
  outdir,
  splitting: false,
  minify: true,
  sourcemap: false,
  external: ["effect", "@effect/platform", "@effect/platform-node", "@account-bills/core", "@account-bills/fleet"],
  metafile: true
})

// The bin imports dist/bin/fleet.js as "../fleet.js" from the chunk that holds main.ts: it must sit
// in chunks/, one level below.
const importers = Object.keys(result.metafile.outputs).filter((file) =>
  (result.metafile.outputs[file]?.imports ?? []).some((each) => each.path === "../fleet.js")
)
if (importers.length === 0 || importers.some((file) => path.basename(path.dirname(file)) !== "chunks")) {
  throw new Error(`bundle-bin: "../fleet.js" is imported from ${importers.join(", ") || "nowhere"}, not from chunks/`)
}

chmodSync(path.join(outdir, "bills.js"), 0o755)
const outputs = [...Object.entries(result.metafile.outputs), ...Object.entries(fleetResult.metafile.outputs)].filter(
  ([file]) => file.endsWith(".js")
)
for (const [file, output] of outputs) {
  console.log(`${path.relative(root, file)}  ${(output.bytes / 1024).toFixed(0)} kB`)
}
