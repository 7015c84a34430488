/**
 * What `bills` says, as a process: help that a pipe can read, flags refused by name, missing
 * credentials named, failures told as sentences, and what an interrupt leaves behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { exchangeEnv, runCli, startCli } from "./support/runCli.js"

let server: FakeExchangeServerService
let scope: Scope.CloseableScope

const env = (overrides: Record<string, string> = {}) => exchangeEnv(server.url, overrides)

const withoutKey = () => {
  const { WEEX_API_KEY: _, ...rest } = env()
  return rest
}

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({ generate: { seed: 21, funding: 150, spot: 300 } }).pipe(Scope.extend(scope))
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const requestCount = () => Effect.runPromise(Effect.map(server.exchange.requests, (log) => log.length))

describe("bills, as a person reads it", () => {
  it("help through a pipe: no ANSI escapes, every default, the bizTypes, and the WEEX_* variables", async () => {
    const result = await runCli(["export", "--help"], env())
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain("\x1b[")
    for (const text of ["(default: ndjson)", "(default: 10,", "c2c_buy", "order_fill_fee_income", "(default: 9;"]) {
      expect(result.stdout).toContain(text)
    }
    for (const variable of ["WEEX_API_KEY", "WEEX_API_SECRET", "WEEX_API_PASSPHRASE", "WEEX_BASE_URL"]) {
      expect(result.stdout).toContain(variable)
    }
    expect(result.stdout).toContain("WEEX_API_VERSION: the exchange's interface version: v2 or v3")
  })

  it("help an operator finds: bills lists fleet, usage lines are pasteable, no filler, the fleet's own help as plain", async () => {
    const root = await runCli(["--help"], env())
    expect(root.code).toBe(0)
    expect(root.stdout).toMatch(/\n {2}fleet\n {6}many accounts/)
    const mistyped = await runCli(["exprt"], env())
    expect(mistyped.code).toBe(2)
    expect(mistyped.stderr).toBe(
      'bills: "exprt" is not a command of bills; did you mean export? (export, audit, sync, view, fake-exchange, fleet)\n'
    )
    const exported = await runCli(["export", "--help"], env())
    expect(exported.stdout).toContain("$ bills export [--account funding|spot|contract|all]")
    expect(exported.stdout).not.toContain("A user-defined piece of text.")
    const run = await runCli(["fleet", "run", "--help"], env())
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain("\x1b[")
    expect(run.stdout).toContain("$ bills fleet run --db")
    expect(run.stdout).not.toContain("A user-defined piece of text.")
    for (const text of [
      "(default: 34431)",
      "(default: 60s)",
      "(default: 20)",
      "ENVIRONMENT",
      "BILLS_FLEET_KEY",
      "PGPASSWORD",
      "WEEX_API_VERSION"
    ]) {
      expect(run.stdout).toContain(text)
    }
  })

  it("help as written for this tool: every command named, one placeholder style, no @effect/cli boilerplate, the command list within 80 columns, the nearest command suggested", async () => {
    const root = await runCli(["--help"], env())
    expect(root.code).toBe(0)
    const description = root.stdout.split("DESCRIPTION")[1]?.split("COMMANDS")[0] ?? ""
    for (const command of ["export", "audit", "sync", "view", "fake-exchange", "fleet"]) {
      expect(description).toContain(command)
    }
    const helps = [
      root.stdout,
      ...(await Promise.all(
        [
          ["export", "--help"],
          ["audit", "--help"],
          ["view", "--help"],
          ["fake-exchange", "--help"],
          ["fleet", "--help"],
          ["fleet", "run", "--help"],
          ["fleet", "status", "--help"]
        ].map(async (args) => {
          const help = await runCli(args, env())
          expect(help.code, args.join(" ")).toBe(0)
          return help.stdout
        })
      ))
    ]
    for (const help of helps) {
      for (const boilerplate of ["--wizard", "A true or false value.", "A user-defined piece of text."]) {
        expect(help).not.toContain(boilerplate)
      }
      // Placeholders name what goes there, in capitals or as the choices: never the type.
      expect(help).not.toMatch(/--[a-z-]+ (text|integer|float)(?![|\w])/)
      expect(help).not.toMatch(/--[a-z-]+ [a-z0-9-]+ \| /)
      // The command list, where there is one, fits a terminal of 80 columns.
      const commands = help.split("\nCOMMANDS\n")[1]?.split(/\n[A-Z][A-Z ]+\n/)[0] ?? ""
      for (const line of commands.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
      // The flags every command takes are said once, at the end.
      expect(help).toContain("--log-level all|trace|debug|info|warning|error|fatal|none")
    }
    expect(helps[0]).toMatch(/\n {2}fake-exchange\n {6}run a fake exchange/)
    expect(helps[6]).toContain("--db URL")
    expect(helps[6]).toContain("--interval DURATION")
    expect(helps[4]).toContain("--order newest-first|oldest-first")

    const fleetTypo = await runCli(["fleet", "adds"], env())
    expect(fleetTypo.code).toBe(2)
    expect(fleetTypo.stderr).toBe(
      'bills: "adds" is not a command of bills fleet; did you mean add? (add, remove, run, status, rekey)\n'
    )
    const farOff = await runCli(["fleet", "launch"], env())
    expect(farOff.stderr).toBe('bills: "launch" is not a command of bills fleet (add, remove, run, status, rekey)\n')
  })

  it("bills --help alone, answered from the text the build rendered, is what the program itself prints, plain and in colour", async () => {
    // `--log-level info` makes the command line more than `--help`, so the program runs and renders it.
    for (const colour of [{}, { FORCE_COLOR: "1" }]) {
      const fast = await runCli(["--help"], { ...env(), ...colour })
      const short = await runCli(["-h"], { ...env(), ...colour })
      const rendered = await runCli(["--log-level", "info", "--help"], { ...env(), ...colour })
      expect(rendered.code).toBe(0)
      expect(fast.code).toBe(0)
      expect(fast.stdout).toContain("EVERY COMMAND")
      expect(fast.stdout).toBe(rendered.stdout)
      expect(short.stdout).toBe(rendered.stdout)
    }
  })

  it("--log-level is taken after the subcommand, as the help lists it there", async () => {
    const result = await runCli(["export", "--account", "funding", "--log-level", "error", "--out", os.devNull], env())
    expect(result.stderr).not.toContain("unknown argument")
    expect(result.code).toBe(0)
  })

  it("a missing WEEX_API_KEY is named with what it is, not <redacted>", async () => {
    for (const args of [
      ["export", "--account", "spot"],
      ["audit", "--account", "funding"]
    ]) {
      const result = await runCli(args, withoutKey())
      expect(result.code).toBe(1)
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
      expect(result.stderr).toContain("bills: WEEX_API_KEY is not set: the API key of your WEEX account")
      expect(result.stderr).not.toContain("redacted")
    }
  })

  it("a refused connection is a sentence with what to check, not the HTTP client's words", async () => {
    const result = await runCli(["export", "--account", "spot"], env({ WEEX_BASE_URL: "http://127.0.0.1:9" }))
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      "bills: spotBills: could not connect to the exchange at http://127.0.0.1:9: the connection was refused or dropped; check WEEX_BASE_URL and the network\n"
    )
  })

  it("--max-rps above the exchange's limit is taken with a warning toward the exchange (https), not toward a local fake", async () => {
    const toExchange = await runCli(
      ["export", "--account", "spot", "--max-rps", "11"],
      env({ WEEX_BASE_URL: "https://127.0.0.1:9" })
    )
    expect(toExchange.stderr.split("\n")[0]).toBe(
      "bills: warning: --max-rps 11 is above the exchange's limit of 10 requests per second per operation; expect 429 refusals and retries unless your account has a higher limit"
    )
    const toFake = await runCli(["export", "--account", "spot", "--max-rps", "11"], env())
    expect(toFake.code).toBe(0)
    expect(toFake.stdout.trimEnd().split("\n")).toHaveLength(300)
    expect(toFake.stderr).not.toContain("warning")
  })

  it("a summary line agrees with itself: counts in the singular where they are one, no rate over a short run", async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-messages-")), "one.ndjson")
    const coin = (await Effect.runPromise(server.exchange.bills("funding")))[0]?.coinId ?? 1
    const result = await runCli(["export", "--account", "funding", "--coin-id", String(coin), "--out", out], env())
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/^funding: \d+ bills, 1 page, 1 request in \d+\.\d s\n$/)
  })

  it("Ctrl-C: what each account had written, and that an export starts over (exit 130 stays)", async () => {
    const run = startCli(["export", "--account", "all", "--max-rps", "1"], env())
    await run.linesAtLeast(1)
    run.child.kill("SIGINT")
    const result = await run.result
    expect(result.code).toBe(130)
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines.filter((line) => /^(funding|spot): interrupted after \d+ bills? written/.test(line))).toHaveLength(2)
    expect(lines.at(-1)).toContain("bills: interrupted; the output holds whole lines only")
  })

  it("bills fake-exchange refuses a knob of the random bills without --random, in one line", async () => {
    const result = await runCli(["fake-exchange", "--same-ms-every", "5"], {})
    expect(result.code).toBe(2)
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      "bills: --same-ms-every shapes the random bills: add --random (a trader's bills share a millisecond only as a trade's legs and fills do)"
    ])
  })

  it("bills fake-exchange serves and prints the npx commands to use it", async () => {
    const before = await requestCount()
    const run = startCli(["fake-exchange", "--funding", "7", "--spot", "3", "--seed", "5"], {})
    await run.linesAtLeast(5)
    run.child.kill("SIGINT")
    const result = await run.result
    const lines = result.stdout.split("\n")
    expect(lines[0]).toMatch(/^Fake exchange listening on http:\/\/127\.0\.0\.1:\d+ \(Ctrl-C to stop\)$/)
    expect(lines).toContain("  npx bills export --account spot")
    expect(result.stdout).toMatch(
      / {2}export WEEX_BASE_URL=http:\/\/127\.0\.0\.1:\d+ WEEX_API_KEY=\S+ WEEX_API_SECRET=\S+/
    )
    expect(result.stdout).not.toContain("pnpm")
    // Its own exchange, not this test's.
    expect(await requestCount()).toBe(before)
  })
})
