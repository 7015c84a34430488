/**
 * `bills view` as a user starts it: the first line on stdout is the URL, a store that does not
 * exist gets the very line `bills export --db` prints for it before anything listens, a host
 * other than 127.0.0.1 gets one warning line, and SIGINT and SIGTERM end it at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { runCli, startCli } from "../../node/test/support/runCli.js"
import { label, makeStore, tempDir } from "./support/viewStore.js"

let dir: string
let db: string

beforeAll(async () => {
  dir = tempDir("cli")
  db = await makeStore(dir, { seed: 53, funding: 40, spot: 40, contract: 20 })
}, 60_000)

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("bills view", () => {
  it("a store that does not exist, or is not one, gets the export's own line, exit 1, before anything listens", async () => {
    const notStore = path.join(dir, "not-a-store.sqlite")
    fs.writeFileSync(notStore, "")
    for (const target of [path.join(dir, "nope.sqlite"), notStore]) {
      const view = await runCli(["view", "--db", target, "--port", "0"], {})
      const exported = await runCli(["export", "--account", "spot", "--db", target], {})
      expect(view.code).toBe(1)
      expect(view.stdout).toBe("")
      expect(view.stderr).toMatch(/^bills: no store at /)
      expect(view.stderr).toBe(exported.stderr)
    }
    const unknown = await runCli(["view", "--db", db, "--label", "other", "--port", "0"], {})
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe(
      (await runCli(["export", "--account", "spot", "--db", db, "--label", "other"], {})).stderr
    )
  })

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`says where it listens in its first line, serves the page, and ends at once on ${signal}`, async () => {
      const run = startCli(["view", "--db", db, "--label", label, "--port", "0"], {})
      await run.linesAtLeast(1)
      const first = run.output().split("\n")[0] ?? ""
      expect(first).toMatch(/^view at http:\/\/127\.0\.0\.1:\d+\/$/)
      const url = first.slice("view at ".length)
      const page = await fetch(url)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain("bills view")
      // A browser keeps its connection open: the end must not wait for it.
      const held = await fetch(`${url}api/accounts`, { headers: { connection: "keep-alive" } })
      expect(held.status).toBe(200)
      const asked = performance.now()
      run.child.kill(signal)
      const result = await run.result
      expect(performance.now() - asked).toBeLessThan(3_000)
      expect(result.stderr).toBe("")
      expect(result.code === 130 || result.signal === signal).toBe(true)
    })
  }

  it("listening on another address than 127.0.0.1 says once that the page has no login", async () => {
    const run = startCli(["view", "--db", db, "--host", "127.0.0.2", "--port", "0"], {})
    await run.linesAtLeast(1)
    expect(run.output()).toMatch(/^view at http:\/\/127\.0\.0\.2:\d+\/\n$/)
    run.child.kill("SIGTERM")
    const result = await run.result
    const warnings = result.stderr.split("\n").filter((line) => line.includes("no login"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^bills view: warning: listening on 127\.0\.0\.2/)
  })
})
