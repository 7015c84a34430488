/**
 * Every help `bills` prints, byte for byte, against the text captured in test/help/ before the
 * fleet's command line moved into this package (issue 50): the move must change no character of
 * it, plain or coloured. The files are the program's own output; when a help is meant to change,
 * `npx vitest run packages/node/test/HelpTexts.test.ts -u` writes them again and the diff shows
 * what changed.
 */
import { describe, expect, it } from "@effect/vitest"
import { runCli } from "./support/runCli.js"

/** Each help, by the file it is kept in. */
const helps: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["bills", ["--help"]],
  ["bills-h", ["-h"]],
  ["bills-bare", []],
  ["export", ["export", "--help"]],
  ["audit", ["audit", "--help"]],
  ["sync", ["sync", "--help"]],
  ["fake-exchange", ["fake-exchange", "--help"]],
  ["fleet", ["fleet", "--help"]],
  ["fleet-bare", ["fleet"]],
  ["fleet-add", ["fleet", "add", "--help"]],
  ["fleet-remove", ["fleet", "remove", "--help"]],
  ["fleet-rekey", ["fleet", "rekey", "--help"]],
  ["fleet-status", ["fleet", "status", "--help"]],
  ["fleet-run", ["fleet", "run", "--help"]],
  ["version", ["--version"]],
  ["fleet-version", ["fleet", "--version"]]
]

/** Plain as piped, and coloured as a terminal (or `FORCE_COLOR`) asks. */
const renderings = [
  ["plain", { NO_COLOR: "1" }],
  ["colour", { FORCE_COLOR: "1" }]
] as const

describe("bills help, byte for byte", () => {
  for (const [name, args] of helps) {
    for (const [rendering, env] of renderings) {
      it(`bills ${args.join(" ")} (${rendering})`, async () => {
        const result = await runCli(args, env)
        const text = `exit ${result.code}\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`
        await expect(text).toMatchFileSnapshot(`./help/${name}.${rendering}.txt`)
      })
    }
  }
})
