/**
 * The page's files, bundled at build time (scripts/bundle-page.ts) into `dist/page` and read once
 * when the server starts: the view needs no network, no CDN, nothing at run time but itself.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"

/**
 * `dist/page` of this package, found through the package's own name: the same from its sources,
 * its build, and a program that bundles this code elsewhere (the tests' `bills`).
 */
export const pageDirectory = (): string =>
  path.join(path.dirname(createRequire(import.meta.url).resolve("@account-bills/view/package.json")), "dist/page/")

/** A file of the page: its bytes and type. */
export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** The page's files are missing: the package was not built. */
export class PageNotBuilt extends Schema.TaggedError<PageNotBuilt>("@account-bills/view/PageNotBuilt")("PageNotBuilt", {
  directory: Schema.String
}) {
  override get message(): string {
    return `the view's page is not built (${this.directory} is missing): run pnpm --filter @account-bills/view build`
  }
}

const files: ReadonlyArray<readonly [string, string]> = [
  ["index.html", "text/html; charset=utf-8"],
  ["app.js", "text/javascript; charset=utf-8"],
  ["app.css", "text/css; charset=utf-8"],
  ["icon.svg", "image/svg+xml"]
]

/** The page's files by their path on the server. */
export const readAssets = (
  directory: string = pageDirectory()
): Effect.Effect<ReadonlyMap<string, Asset>, PageNotBuilt> =>
  Effect.try({
    try: () =>
      new Map(
        files.map(([name, contentType]) => [
          name === "index.html" ? "/" : `/assets/${name}`,
          { body: fs.readFileSync(`${directory}${name}`), contentType }
        ])
      ),
    catch: () => new PageNotBuilt({ directory })
  })
