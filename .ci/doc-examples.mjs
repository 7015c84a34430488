// Extracts every ```ts / ```typescript block of README.md and docs/*.md (not docs/internals) into
// files a consumer compiles and runs: `node .ci/doc-examples.mjs <repo> <out-dir>`. Writes
// <out-dir>/<doc>/<file>.ts per block and prints the manifest as JSON on stdout, one entry per
// block: { doc, line, dir, file, kind }, kind being
//   program   calls runMain, runPromise, runFork or runSync: compiled, then run with node;
//   test      imports vitest or @effect/vitest: compiled, then run with vitest;
//   module    exports what it defines and runs nothing: compiled (and run by a block that imports it);
//   fragment  marked in the doc by a first line `// Fragment: …` (visible to readers), compiled
//             inside the wrapper given by the HTML comment `<!-- example-wrapper … -->` just above
//             the block, where the line `// <fragment>` stands for the block.
// A block that is none of these is an error, as is a marked fragment without its wrapper: no
// block is left out unseen. `<!-- example-file: NAME.ts -->` just above a block names its file
// (for blocks that import one another, as the doc says they sit side by side); else the file is
// `block-<line>.ts`.
import * as fs from "node:fs"
import * as path from "node:path"

const [repo, out] = process.argv.slice(2)
if (repo === undefined || out === undefined) throw new Error("usage: doc-examples.mjs <repo> <out-dir>")

const docs = [
  "README.md",
  ...fs
    .readdirSync(path.join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`)
]
fs.rmSync(out, { recursive: true, force: true })
const manifest = []
const problems = []
for (const doc of docs) {
  const text = fs.readFileSync(path.join(repo, doc), "utf8")
  const dir = doc.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-")
  // Fences indented in a list item too: the block is the text with that indentation taken off.
  for (const found of text.matchAll(/^([ \t]*)(`{3,})(?:ts|typescript)[ \t]*\n([\s\S]*?)^\1\2[ \t]*$/gm)) {
    const line = text.slice(0, found.index).split("\n").length
    const before = text.slice(0, found.index).trimEnd()
    const indent = found[1]
    const body = found[3]
      .split("\n")
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join("\n")
    const named = /<!-- example-file: ([\w.-]+\.ts) -->$/.exec(before)
    const file = named === null ? `block-${line}.ts` : named[1]
    let source = body
    let kind
    if (/^\/\/ Fragment: /.test(body)) {
      kind = "fragment"
      const wrapper = /<!-- example-wrapper\n([\s\S]*?)-->\s*(<!-- example-file: [\w.-]+ -->\s*)?$/.exec(before)
      if (wrapper === null || !wrapper[1].includes("// <fragment>\n")) {
        problems.push(
          `${doc}:${line}: a fragment without an <!-- example-wrapper … --> comment (with a line // <fragment>) above it`
        )
        continue
      }
      source = wrapper[1].replace("// <fragment>\n", body)
    } else if (/from "(@effect\/)?vitest"/.test(body)) kind = "test"
    else if (/\b(runMain|runPromise|runFork|runSync)\(/.test(body)) kind = "program"
    else if (/^export /m.test(body)) kind = "module"
    else {
      problems.push(
        `${doc}:${line}: neither a program (runMain, ...), a test, a module (export) nor a marked fragment (// Fragment: ...)`
      )
      continue
    }
    fs.mkdirSync(path.join(out, dir), { recursive: true })
    if (fs.existsSync(path.join(out, dir, file)))
      problems.push(`${doc}:${line}: a second block named ${file}, which would hide the first`)
    fs.writeFileSync(path.join(out, dir, file), source)
    manifest.push({ doc, line, dir, file, kind })
  }
}
if (problems.length > 0) {
  console.error(
    `doc-examples: ${problems.length} block(s) that would be neither compiled nor run:\n  ${problems.join("\n  ")}`
  )
  process.exit(1)
}
process.stdout.write(`${JSON.stringify(manifest)}\n`)
