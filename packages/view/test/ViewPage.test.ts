/// <reference lib="dom" />
/**
 * `bills view` in a real browser (Debian's headless Chromium): the page loads without a console
 * error, its overview shows the store's own last reported balances, a filter in the URL shows the
 * bills `bills export --db` exports with the same flags, a download is that export byte for byte,
 * bad input is named, and the keyboard alone reaches every filter.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BrowserContext } from "playwright-core"
import { exportToFile } from "../../node/src/cli/ViewCommand.js"
import { runCli } from "../../node/test/support/runCli.js"
import { ViewMain } from "../src/index.js"
import { hasChromium, launch, watchedPage } from "./support/chromium.js"
import { label, makeStore, tempDir } from "./support/viewStore.js"

let scope: Scope.CloseableScope
let browser: { readonly context: BrowserContext; readonly close: () => Promise<void> }
let db: string
let url: string
let dir: string

beforeAll(async () => {
  dir = tempDir("page")
  db = await makeStore(dir, { seed: 51, funding: 300, spot: 300, contract: 150 })
  scope = await Effect.runPromise(Scope.make())
  const served = await Effect.runPromise(
    ViewMain.serve({ db, label, port: 0, exportToFile, say: () => {}, warn: () => {} }).pipe(Scope.extend(scope))
  )
  url = served.url
  browser = await launch()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(dir, { recursive: true, force: true })
})

/** `bills export --db` as a user runs it: its standard output, byte for byte. */
const exported = async (flags: ReadonlyArray<string>): Promise<Buffer> => {
  const out = path.join(dir, `export-${Math.random().toString(36).slice(2)}`)
  const result = await runCli(["export", "--db", db, ...flags, "--out", out], {})
  expect(result.code, result.stderr).toBe(0)
  return fs.readFileSync(out)
}

const ndjson = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** The bill ids the table shows, page after page. */
const tableIds = async (context: BrowserContext, query: string) => {
  const { page, errors } = await watchedPage(context)
  await page.goto(`${url}${query}`)
  const ids: Array<string> = []
  for (;;) {
    await page.waitForSelector("#p-status:not(:empty)")
    ids.push(
      ...(await page.$$eval("#bills tbody tr", (rows) => rows.map((row) => row.getAttribute("data-bill") ?? "")))
    )
    if (await page.isDisabled("#p-next")) break
    const status = await page.textContent("#p-status")
    await page.click("#p-next")
    await page.waitForFunction((before) => document.getElementById("p-status")?.textContent !== before, status)
  }
  await page.close()
  return { ids, errors }
}

describe.skipIf(!hasChromium)("bills view in Chromium", () => {
  it("loads with no console error, the overview and the audit's verdict drawn", async () => {
    const { page, errors } = await watchedPage(browser.context)
    await page.goto(url)
    await page.waitForSelector("#overview tbody tr")
    await page.waitForSelector("#bills tbody tr")
    await page.waitForSelector("#audit .whole, #audit .gap")
    await page.waitForSelector("#chart canvas")
    expect(await page.textContent("#audit")).toContain("Audit: whole")
    await page.screenshot({ path: path.join(dir, "view.png"), fullPage: true })
    await page.close()
    expect(errors).toEqual([])
  })

  it("every balance of the overview is the store's last reported balance of that kind and coin", async () => {
    const { page } = await watchedPage(browser.context)
    await page.goto(url)
    await page.waitForSelector("#overview tbody tr")
    const shown = await page.$$eval("#overview tbody tr", (rows) =>
      rows.map((row) => ({
        kind: row.getAttribute("data-kind") ?? "",
        coin: row.getAttribute("data-coin") ?? "",
        balance: row.querySelector("[data-balance]")?.textContent ?? ""
      }))
    )
    await page.close()
    const expected: Array<{ kind: string; coin: string; balance: string }> = []
    for (const kind of ["funding", "spot", "contract"]) {
      const last = new Map<string, { time: bigint; id: bigint; balance: string }>()
      for (const bill of ndjson(await exported(["--account", kind, "--format", "ndjson"]))) {
        const coin = String(bill.coinName ?? bill.coin)
        const time = BigInt(String(bill.cTime ?? bill.ctime))
        const id = BigInt(String(bill.billId))
        const balance = String(bill.afterAmount ?? bill.balance)
        const held = last.get(coin)
        if (held === undefined || time > held.time || (time === held.time && id > held.id))
          last.set(coin, { time, id, balance })
      }
      for (const [coin, held] of [...last].sort(([a], [b]) => a.localeCompare(b))) {
        expected.push({ kind, coin, balance: held.balance })
      }
    }
    expect(shown).toEqual(expected)
    expect(shown.length).toBe(12)
  })

  it("a filter in the URL shows the bills bills export --db exports with the same flags", async () => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["?kind=spot&coin=BTC&from=2025-02-01", ["--account", "spot", "--coin-id", "2", "--from", "2025-02-01"]],
      ["?kind=funding&bizType=deposit", ["--account", "funding", "--biz-type", "deposit"]],
      [
        "?kind=contract&from=2025-03-01&to=2025-03-15",
        ["--account", "contract", "--from", "2025-03-01", "--to", "2025-03-15"]
      ]
    ]
    for (const [query, flags] of cases) {
      const { ids, errors } = await tableIds(browser.context, query)
      const expected = ndjson(await exported([...flags, "--format", "ndjson"])).map((bill) => String(bill.billId))
      expect(expected.length).toBeGreaterThan(0)
      expect([...ids].sort()).toEqual([...expected].sort())
      expect(errors).toEqual([])
    }
  })

  it("every table page is a keyset page: the pages of all bills hold each bill once", async () => {
    const { ids } = await tableIds(browser.context, "?from=2025-03-20")
    const all = ndjson(await exported(["--account", "all", "--from", "2025-03-20", "--format", "ndjson"]))
    expect(ids.length).toBeGreaterThan(50)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(all.map((bill) => String(bill.billId)).sort())
  })

  it("a download is byte for byte the export with the same flags", async () => {
    const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
      [
        "?kind=spot&coin=BTC&from=2025-02-01",
        "ndjson",
        ["--account", "spot", "--coin-id", "2", "--from", "2025-02-01", "--label", label]
      ],
      [
        "?kind=spot&coin=BTC&from=2025-02-01",
        "csv",
        ["--account", "spot", "--coin-id", "2", "--from", "2025-02-01", "--label", label]
      ],
      ["?to=2025-03-01", "koinly", ["--account", "all", "--to", "2025-03-01", "--label", label]],
      ["", "beancount", ["--account", "all", "--label", label]]
    ]
    for (const [query, format, flags] of cases) {
      const { page, errors } = await watchedPage(browser.context)
      await page.goto(`${url}${query}`)
      await page.waitForSelector(`#download-${format}`)
      const [download] = await Promise.all([page.waitForEvent("download"), page.click(`#download-${format}`)])
      const saved = path.join(dir, `download-${format}`)
      await download.saveAs(saved)
      await page.close()
      const bytes = fs.readFileSync(saved)
      expect(bytes.length).toBeGreaterThan(0)
      expect(bytes.equals(await exported([...flags, "--format", format]))).toBe(true)
      expect(errors).toEqual([])
    }
  })

  it("a row opens its raw record, as the exchange sent it", async () => {
    const { page, errors } = await watchedPage(browser.context)
    await page.goto(`${url}?kind=contract`)
    await page.waitForSelector("#bills tbody tr")
    const id = await page.getAttribute("#bills tbody tr:nth-child(3)", "data-bill")
    await page.click("#bills tbody tr:nth-child(3) button")
    await page.waitForSelector("#raw:not([hidden])")
    const shown = JSON.parse((await page.textContent("#raw-body")) ?? "") as Record<string, unknown>
    expect(String(shown.billId)).toBe(id)
    const stored = await (await fetch(`${url}api/bill?kind=contract&id=${id}`)).text()
    expect(shown).toEqual(JSON.parse(stored))
    // The record as sent: the futures account's v2 fields, not the table's.
    expect(Object.keys(shown)).toEqual(expect.arrayContaining(["coin", "businessType", "balance", "ctime"]))
    await page.close()
    expect(errors).toEqual([])
  })

  it("the events are those the tax files are written from: as many, from as many bills, as bills export --format koinly says", async () => {
    const { page, errors } = await watchedPage(browser.context)
    await page.goto(`${url}?to=2025-03-01`)
    await page.waitForSelector("#bills tbody tr")
    await page.click("#events-load")
    await page.waitForSelector("#events table")
    const summary = (await page.textContent("#events p")) ?? ""
    await page.close()
    const out = path.join(dir, "events-koinly.csv")
    const koinly = await runCli(["export", "--db", db, "--format", "koinly", "--to", "2025-03-01", "--out", out], {})
    const said = /koinly: (\d+) events from (\d+) bills; (\d+) unpaired, (\d+) of unknown type/.exec(koinly.stderr)
    expect(said).not.toBeNull()
    const [, events, bills, unpaired, unknown] = said ?? []
    expect(summary).toContain(
      `${Number(events).toLocaleString("en-US")} events from ${Number(bills).toLocaleString("en-US")} bills; ${Number(unpaired) + Number(unknown)} flagged`
    )
    expect(errors).toEqual([])
  })

  it("bad input is named in the page, and answered 400 with the reason", async () => {
    const { page } = await watchedPage(browser.context)
    for (const [query, named] of [
      ["?kind=savings", "kind"],
      ["?coin=NOPE", "coin: the account holds no bills of NOPE"],
      ["?from=2025-03-01&to=2025-02-01", "from (2025-03-01) is after to (2025-02-01)"],
      ["?from=yesterday", "from"]
    ] as const) {
      await page.goto(`${url}${query}`)
      await page.waitForSelector("#error:not([hidden])")
      expect(await page.textContent("#error")).toContain(named)
      const response = await fetch(`${url}api/bills${query}`)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: string }).error).toContain(named)
    }
    await page.close()
  })

  it("the keyboard alone reaches every filter, and Enter applies them", async () => {
    const { page, errors } = await watchedPage(browser.context)
    await page.goto(url)
    await page.waitForSelector("#bills tbody tr")
    const reached = new Set<string>()
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab")
      reached.add(await page.evaluate(() => document.activeElement?.id ?? ""))
    }
    for (const id of ["account", "f-kind", "f-coin", "f-bizType", "f-from", "f-to", "f-apply", "f-clear"]) {
      expect(reached, id).toContain(id)
    }
    await page.focus("#f-from")
    await page.keyboard.type("2025-03-25")
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => location.search === "?from=2025-03-25")
    await page.close()
    expect(errors).toEqual([])
  })
})
