/**
 * Runs the real accounting tools on a journal: `hledger check --strict` (balance assertions on),
 * `ledger --pedantic balance` (assertions on) and `bean-check`, and reads each tool's final
 * balances per account and commodity from the tool itself (hledger's and Ledger's `balance`
 * reports, Beancount's own loader and realization).
 *
 * A missing tool skips its tests with a loud warning, except in CI (`.ci/run` sets
 * ACCOUNT_BILLS_CI=1 after installing the three), where it fails them.
 */
import * as BigDecimal from "effect/BigDecimal"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { it } from "vitest"

export type Tool = "hledger" | "ledger" | "beancount"

export const tools: ReadonlyArray<Tool> = ["hledger", "ledger", "beancount"]

const binaries: Readonly<Record<Tool, string>> = { hledger: "hledger", ledger: "ledger", beancount: "bean-check" }

const onPath = (binary: string) => spawnSync("sh", ["-c", `command -v ${binary}`]).status === 0

/** The Python that runs bean-check (its `#!` line), which is the one that has the beancount module. */
const beancountPython = (): string => {
  const found = spawnSync("sh", ["-c", "command -v bean-check"], { encoding: "utf8" }).stdout.trim()
  if (found === "") return "python3"
  const first = fs.readFileSync(found, "utf8").split("\n")[0] ?? ""
  return first.startsWith("#!") ? (first.slice(2).trim().split(/\s+/)[0] ?? "python3") : "python3"
}

export const installed: Readonly<Record<Tool, boolean>> = {
  hledger: onPath("hledger"),
  ledger: onPath("ledger"),
  beancount: onPath("bean-check")
}

const inCi = process.env.ACCOUNT_BILLS_CI === "1"

/**
 * `it` for a test that needs `tool`: skipped with a warning when the tool is missing outside CI;
 * in CI the test runs and fails on the missing tool.
 */
export const itWith = (tool: Tool): typeof it => {
  if (installed[tool] || inCi) return it
  const line = "!".repeat(100)
  console.warn(
    `${line}\n!!! ${binaries[tool]} is not installed: the ${tool} journal tests SKIP. Install it (apt-get install ${tool}) to run them; in CI they fail without it.\n${line}`
  )
  return it.skip as typeof it
}

/**
 * How many Beancount `balance` directives a journal of `entries` holds: one per account, coin
 * and UTC day that saw a bill.
 */
export const billDays = (
  entries: ReadonlyArray<{
    readonly account: string
    readonly bill: { readonly coinName: string; readonly cTime: { readonly epochMillis: number } }
  }>
): number =>
  new Set(
    entries.map(
      (entry) => `${entry.account}:${entry.bill.coinName}:${Math.floor(entry.bill.cTime.epochMillis / 86_400_000)}`
    )
  ).size

/** A fresh file holding `text`. */
export const journalFile = (text: string, name: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-journal-"))
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return file
}

export interface ToolRun {
  readonly ok: boolean
  /** What the tool printed (stdout and stderr), for the failure message. */
  readonly output: string
  /** `account\u0000commodity` -> the tool's final balance; empty when the check failed. */
  readonly balances: ReadonlyMap<string, BigDecimal.BigDecimal>
}

const run = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 30 })
  return {
    ok: result.status === 0 && result.error === undefined,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? "",
    output: `${command} ${args.join(" ")} -> ${result.status}\n${result.stdout ?? ""}${result.stderr ?? ""}${result.error?.message ?? ""}`
  }
}

const decimal = (text: string): BigDecimal.BigDecimal => {
  const parsed = BigDecimal.fromString(text.trim())
  if (parsed._tag === "None") throw new Error(`not a decimal: ${JSON.stringify(text)}`)
  return BigDecimal.normalize(parsed.value)
}

const unquote = (symbol: string) => symbol.trim().replace(/^"(.*)"$/, "$1")

const hledger = (file: string): ToolRun => {
  const check = run("hledger", ["-f", file, "check", "--strict"])
  if (!check.ok) return { ok: false, output: check.output, balances: new Map() }
  const report = run("hledger", ["-f", file, "balance", "--flat", "-N", "-O", "csv", "--layout=bare"])
  const balances = new Map<string, BigDecimal.BigDecimal>()
  for (const line of report.stdout.trim().split("\n").slice(1)) {
    const [account, commodity, amount] = line.split(",").map((cell) => cell.replace(/^"|"$/g, ""))
    balances.set(`${account}\u0000${commodity}`, decimal(amount as string))
  }
  return { ok: report.ok, output: `${check.output}\n${report.output}`, balances }
}

const ledger = (file: string): ToolRun => {
  const report = run("ledger", [
    "-f",
    file,
    "--pedantic",
    "balance",
    "--flat",
    "--no-total",
    "--balance-format",
    "%(account)\t%(scrub(display_total))\n"
  ])
  // Anything Ledger says on stderr (a line it could not parse, a failed assertion) fails the check.
  if (!report.ok || report.stderr.trim() !== "") return { ok: false, output: report.output, balances: new Map() }
  const balances = new Map<string, BigDecimal.BigDecimal>()
  let account = ""
  for (const line of report.stdout.split("\n")) {
    if (line.trim() === "") continue
    const [head, amount] = line.includes("\t") ? line.split("\t") : [account, line]
    account = head as string
    const text = (amount as string).trim()
    const space = text.indexOf(" ")
    balances.set(`${account}\u0000${unquote(text.slice(space + 1))}`, decimal(text.slice(0, space).replaceAll(",", "")))
  }
  return { ok: true, output: report.output, balances }
}

const beancountBalances = `
import sys
from beancount import loader
from beancount.core import realization
entries, errors, options = loader.load_file(sys.argv[1])
if errors:
    sys.exit(1)
for account in realization.iter_children(realization.realize(entries)):
    for position in account.balance:
        print(account.account + "\\t" + position.units.currency + "\\t" + format(position.units.number, "f"))
`

const beancount = (file: string): ToolRun => {
  const check = run("bean-check", [file])
  if (!check.ok) return { ok: false, output: check.output, balances: new Map() }
  const report = run(beancountPython(), ["-c", beancountBalances, file])
  const balances = new Map<string, BigDecimal.BigDecimal>()
  for (const line of report.stdout.trim().split("\n")) {
    if (line === "") continue
    const [account, currency, amount] = line.split("\t")
    balances.set(`${account}\u0000${currency}`, decimal(amount as string))
  }
  return { ok: report.ok, output: `${check.output}\n${report.output}`, balances }
}

/**
 * Checks the journal in `file` with `tool`, and on success reads its final balances.
 */
export const checkJournal = (tool: Tool, file: string): ToolRun =>
  tool === "hledger" ? hledger(file) : tool === "ledger" ? ledger(file) : beancount(file)
