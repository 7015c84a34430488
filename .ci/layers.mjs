// The house's one rule (docs/ARCHITECTURE.md, "The house"): a package imports only packages below
// it, never one above, never itself through another. The layers, lowest first:
//
//   core → books → store → fleet → node → bench, examples      (the view, when it comes: over store, books)
//
// Checked in every file a package ships or builds with (src/ and scripts/ of each package, bench/
// and examples/), for every way a module names another: `import … from`, `export … from`,
// `import("…")` and `import x = require("…")`, by package name (`@account-bills/store`,
// `@account-bills/core/testing`) or by a relative path into another package's directory. And in
// each package.json's dependencies and peerDependencies (not devDependencies: a test or a build
// may reach anywhere, as the fleet's tests run the `bills` program). Run by `pnpm lint`; exits
// non-zero naming each import or dependency that points up.
//
// One exception, by name: core's deprecated entry (src/deprecated/books.ts, `@account-bills/core/books`)
// re-exports the books' names for the one release after they left core, with the books an optional
// peer of core. Nothing in core imports that entry; it goes in the next release, and this
// exception with it.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Each layer's rank: a package may import the packages of a lower rank only. */
const rank = { core: 0, books: 1, store: 2, view: 2, fleet: 3, node: 4, bench: 5, examples: 5 }
/** The directory of each layer. */
const dirOf = (name) => (name === "bench" || name === "examples" ? name : `packages/${name}`)
/** Imports allowed against the rule, as "from-file → package". */
const exceptions = new Set(["packages/core/src/deprecated/books.ts → books"])

const layers = Object.keys(rank).filter((name) => fs.existsSync(path.join(root, dirOf(name))))
const problems = []

/** The layer a specifier names, if it is one of ours (by package name or by a path into one). */
const layerOf = (specifier, fromFile) => {
  const named = /^@account-bills\/([a-z-]+)(?:\/|$)/.exec(specifier)
  if (named !== null) return named[1]
  if (!specifier.startsWith(".")) return undefined
  const target = path.relative(root, path.resolve(path.dirname(fromFile), specifier))
  return layers.find((name) => target === dirOf(name) || target.startsWith(`${dirOf(name)}/`))
}

/** Every module specifier of a TypeScript or JavaScript source, comments left out. */
const specifiersOf = (text) => {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1")
  const found = []
  for (const pattern of [
    /\b(?:import|export)\s[^"'`;]*?\sfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g
  ]) {
    for (const match of code.matchAll(pattern)) found.push(match[1])
  }
  return found
}

const sourcesUnder = (dir) => {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory())
      return ["node_modules", "dist", "docs", "test", ".test-bin"].includes(entry.name) ? [] : sourcesUnder(full)
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : []
  })
}

for (const layer of layers) {
  const dir = path.join(root, dirOf(layer))
  const files =
    layer === "bench" || layer === "examples"
      ? sourcesUnder(dir)
      : [...sourcesUnder(path.join(dir, "src")), ...sourcesUnder(path.join(dir, "scripts"))]
  for (const file of files) {
    const relative = path.relative(root, file)
    for (const specifier of specifiersOf(fs.readFileSync(file, "utf8"))) {
      const target = layerOf(specifier, file)
      if (target === undefined || target === layer) continue
      if (rank[target] >= rank[layer] && !exceptions.has(`${relative} → ${target}`)) {
        problems.push(`${relative} imports "${specifier}": ${layer} may import only ${below(layer)}`)
      }
    }
  }
  const manifest = path.join(dir, "package.json")
  if (!fs.existsSync(manifest)) continue
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"))
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const name of Object.keys(pkg[field] ?? {})) {
      const target = layerOf(name, manifest)
      if (target === undefined || target === layer) continue
      const allowed = layer === "core" && target === "books" && field === "peerDependencies"
      if (rank[target] >= rank[layer] && !(allowed && pkg.peerDependenciesMeta?.[name]?.optional === true)) {
        problems.push(
          `${path.relative(root, manifest)}: ${field} names ${name}: ${layer} may depend only on ${below(layer)}`
        )
      }
    }
  }
}

function below(layer) {
  const lower = layers.filter((name) => rank[name] < rank[layer])
  return lower.length === 0 ? "effect and the outside world" : lower.join(", ")
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`layers: ${problem}`)
  console.error(`layers: ${problems.length} import(s) against the order core → books → store → fleet → node → bench`)
  process.exit(1)
}
