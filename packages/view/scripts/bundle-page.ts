/**
 * Bundles the page (page/main.ts and uPlot) into dist/page at build time: app.js, app.css (uPlot's
 * styles and the page's), index.html and icon.svg. The server serves these files and nothing else, so the
 * page works offline and under `Content-Security-Policy: default-src 'self'`.
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Writes the page's files into `outdir` (default dist/page). */
export const bundlePage = async (outdir: string = path.join(root, "dist/page")): Promise<void> => {
  fs.mkdirSync(outdir, { recursive: true })
  await esbuild.build({
    entryPoints: [path.join(root, "page/main.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    sourcemap: false,
    legalComments: "none",
    outfile: path.join(outdir, "app.js"),
    logLevel: "warning"
  })
  const uplotCss = createRequire(path.join(root, "package.json")).resolve("uplot/dist/uPlot.min.css")
  fs.writeFileSync(
    path.join(outdir, "app.css"),
    `${fs.readFileSync(uplotCss, "utf8")}\n${fs.readFileSync(path.join(root, "page/style.css"), "utf8")}`
  )
  for (const file of ["index.html", "icon.svg"]) fs.copyFileSync(path.join(root, "page", file), path.join(outdir, file))
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await bundlePage()
  console.log(`dist/page: ${fs.readdirSync(path.join(root, "dist/page")).join(", ")}`)
}
