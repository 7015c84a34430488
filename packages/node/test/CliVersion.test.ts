/**
 * `--version` prints the version in the package.json of the package that owns the command:
 * `bills` the node package's, `bills fleet` the fleet's (the library its runners run, though the
 * command line is the node package's). Run as a process from the sources (the
 * built and packed bin reads the same file the same way: by the package's own name).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Schema from "effect/Schema"
import { runCli } from "./support/runCli.js"

const versionIn = (manifest: URL): string =>
  Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))(
    fs.readFileSync(manifest, "utf8")
  ).version

const packages = [
  { args: ["--version"], manifest: new URL("../package.json", import.meta.url) },
  { args: ["fleet", "--version"], manifest: new URL("../../fleet/package.json", import.meta.url) }
]

describe("bills --version, as a process", () => {
  for (const { args, manifest } of packages) {
    it(`bills ${args.join(" ")} prints the version in ${manifest.pathname.split("/").slice(-2).join("/")}`, async () => {
      const result = await runCli(args, {})
      expect(result.code).toBe(0)
      expect(result.stdout.trim()).toBe(versionIn(manifest))
    })
  }
})
