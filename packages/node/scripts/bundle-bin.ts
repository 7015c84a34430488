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
 */
import * as esbuild from "esbuild"
import { chmodSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { binBundleOptions, buildWithTopHelp } from "./binBundleOptions.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outdir = path.join(root, "dist/bin")

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
      // The fleet and the view are packages of their own, loaded by `bills fleet` and `bills view`
      // from the user's install.
      external: [
        "@libsql/client",
        "libsql",
        "pg",
        "pg-connection-string",
        "pg-cursor",
        "@account-bills/fleet",
        "@account-bills/view"
      ],
      outExtension: { ".js": ".js" },
      metafile: true
    }),
  outdir
)

chmodSync(path.join(outdir, "bills.js"), 0o755)
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith(".js"))
for (const [file, output] of outputs) {
  console.log(`${path.relative(root, file)}  ${(output.bytes / 1024).toFixed(0)} kB`)
}
