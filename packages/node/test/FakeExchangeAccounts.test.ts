/**
 * `bills fake-exchange --accounts N`, as an operator trying the fleet locally runs it: one process
 * serving N keys at one address, printed one a line; each key reads its own account's bills, and a
 * key of none of them is refused as the exchange refuses an unknown key.
 */
import { FakeExchange } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { runCli, startCli } from "./support/runCli.js"

/** `WEEX_API_KEY=… WEEX_API_SECRET=… WEEX_API_PASSPHRASE=…` as an environment. */
const envOf = (line: string): Record<string, string> =>
  Object.fromEntries(
    line
      .trim()
      .split(/\s+/)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const)
  )

const accountLine = /^ {2}WEEX_API_KEY=\S+ WEEX_API_SECRET=\S+ WEEX_API_PASSPHRASE=\S+$/

describe("bills fake-exchange --accounts N", () => {
  it("serves N keys at one address, printed one a line; each reads its own bills, any other key is refused", async () => {
    const run = startCli(
      ["fake-exchange", "--accounts", "3", "--funding", "30", "--spot", "20", "--rate-limit", "0", "--seed", "7"],
      {}
    )
    try {
      // The hint that ends the start-up lines: `fleet add` for the second account.
      while (!run.output().includes("fleet add")) {
        await Promise.race([run.linesAtLeast(run.output().split("\n").length), run.result])
        if (run.child.exitCode !== null) throw new Error(`fake-exchange ended: ${run.output()}`)
      }
      const printed = run.output()
      const url = /listening on (http:\/\/\S+)/.exec(printed)?.[1] ?? ""
      expect(url, printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(printed).toContain(
        "30 funding, 20 spot and 25 futures bills of a trader over 365 days per account, 3 accounts (seeds 7..9)"
      )
      const accounts = printed
        .split("\n")
        .filter((line) => accountLine.test(line))
        .map(envOf)
      expect(accounts, printed).toHaveLength(3)
      // The first is the testing kit's, so every one-account instruction keeps working.
      expect(accounts[0]?.WEEX_API_KEY).toBe(FakeExchange.defaultCredentials.apiKey)
      expect(new Set(accounts.map((account) => account.WEEX_API_KEY)).size).toBe(3)

      const ids: Array<ReadonlySet<string>> = []
      for (const account of accounts) {
        const exported = await runCli(["export", "--account", "funding"], { ...account, WEEX_BASE_URL: url })
        expect(exported.code, exported.stderr).toBe(0)
        const lines = exported.stdout.trimEnd().split("\n")
        expect(lines).toHaveLength(30)
        ids.push(new Set(lines.map((line) => String((JSON.parse(line) as { readonly billId: unknown }).billId))))
      }
      // Each key its own account: no bill of one is listed under another.
      const shared = (a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined) =>
        [...(a ?? [])].filter((id) => b?.has(id) === true)
      expect(shared(ids[0], ids[1])).toEqual([])
      expect(shared(ids[1], ids[2])).toEqual([])

      const stranger = await runCli(["export", "--account", "funding"], {
        ...accounts[1],
        WEEX_API_KEY: "nobody-here",
        WEEX_BASE_URL: url
      })
      expect(stranger.code).not.toBe(0)
      expect(stranger.stderr).toMatch(/key|Authentication/i)
    } finally {
      run.child.kill("SIGKILL")
    }
  }, 120_000)
})
