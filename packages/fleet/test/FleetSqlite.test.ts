/**
 * `bills fleet … --db <SQLite path>` through the real `bills` entry point: every command refuses
 * at once, in one line that says the fleet needs PostgreSQL and why, exits 2 (a bad value), and
 * leaves no file behind. Needs no server.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { bills } from "./support/runnerProcess.js"
import { testKey } from "./support/services.js"

const env = {
  BILLS_FLEET_KEY: testKey,
  WEEX_API_KEY: "k",
  WEEX_API_SECRET: "s",
  WEEX_API_PASSPHRASE: "p"
}

describe("the fleet on a SQLite path", () => {
  it("every command exits 2 with one line saying the fleet needs PostgreSQL and why", async () => {
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "fleet-sqlite-")), "fleet.sqlite")
    const commands = [["status"], ["run", "--port", "0"], ["add", "--label", "a"], ["remove", "--label", "a"]]
    const runs = commands.map((args) => bills(args[0] ?? "", [...args, "--db", db], env))
    const codes = await Promise.all(runs.map((run) => run.exited))
    for (const [i, run] of runs.entries()) {
      const lines = run.stderr().trim().split("\n")
      expect({ command: commands[i], code: codes[i], lines }).toEqual({
        command: commands[i],
        code: 2,
        lines: [
          `bills: the fleet needs a PostgreSQL database (postgres://…), not ${db}: its runners share one database for accounts, messages and shard locks across processes and machines, and the locks are PostgreSQL advisory locks, freed the moment a runner dies`
        ]
      })
    }
    expect(fs.existsSync(db)).toBe(false)
  }, 60_000)
})
