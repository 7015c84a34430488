/**
 * The history horizon end to end: the real `bills` bin against the loopback fake serving the
 * last part of a longer history (and again with a width limit on top), on v2 and v3. Export
 * with no --from, export with --from 2020-01-01 and sync all exit 0 and hold every served bill;
 * the clip is said in one stderr line per account; a store whose cursor the horizon has passed
 * resumes anyway.
 */
import type { WireBill } from "@account-bills/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { type BothAccounts, expectTaggedNdjsonExport } from "./support/exportCheck.js"
import { type CliResult, exchangeEnv, runCli, startCli } from "./support/runCli.js"

const day = 86_400_000
const minute = 60_000
// Bills are laid out relative to the start of the run; a horizon is put in a stretch with no
// bill from `before` under it to `above` over it, so which bills are served stays plain while
// the clock moves on during the run (and past the walk's margin above a horizon).
const now = Date.now()
const history = { startMillis: now - 180 * day, endMillis: now }
const before = 2 * minute
const above = 15 * minute
const width = 20 * day

const versions = ["v2", "v3"] as const
type Version = (typeof versions)[number]
const servers = new Map<string, FakeExchangeServerService>()
let scope: Scope.CloseableScope
let all: BothAccounts
/** Lookbacks with the horizon in a quiet stretch near 90 and 60 days back. */
let lookback: number
let laterLookback: number

const quietLookback = (near: number): number => {
  const times = [...all.funding, ...all.spot].map((bill) => Number(bill.cTime))
  for (let candidate = near; candidate < near + 10 * day; candidate += minute) {
    const horizon = now - candidate
    if (times.every((t) => t < horizon - before || t >= horizon + above)) return candidate
  }
  throw new Error("no quiet stretch for a horizon")
}

const key = (version: Version, wide: boolean) => `${version}/${wide ? "width" : "horizon"}`

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  for (const version of versions) {
    for (const wide of [false, true]) {
      const server = await Effect.runPromise(
        FakeExchangeServer.make({
          apiVersion: version,
          generate: { seed: 2020, funding: 500, spot: 1500, ...history }
        }).pipe(Scope.extend(scope))
      )
      servers.set(key(version, wide), server)
    }
  }
  const first = servers.get(key("v2", false)) as FakeExchangeServerService
  all = {
    funding: await Effect.runPromise(first.exchange.bills("funding")),
    spot: await Effect.runPromise(first.exchange.bills("spot"))
  }
  lookback = quietLookback(90 * day)
  laterLookback = quietLookback(60 * day)
  for (const [name, server] of servers) {
    await Effect.runPromise(
      server.exchange.configure({
        lookbackMillis: lookback,
        maxWindowMillis: name.endsWith("width") ? width : undefined
      })
    )
  }
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const env = (server: FakeExchangeServerService, version: Version, overrides: Record<string, string> = {}) =>
  exchangeEnv(server.url, { WEEX_API_VERSION: version, ...overrides })

/** No exchange listens there: a read from the store runs offline. */
const offline = { WEEX_BASE_URL: "http://127.0.0.1:9" }

const tempStore = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-horizon-")), "bills.sqlite")

/**
 * What an exchange with this lookback serves (the quiet stretch makes it exact). The fake
 * refuses a start bound before its horizon; a funding request with no start bound is not
 * refused and lists the whole history, unless a width limit refuses it (`fundingWhole`).
 */
const served = (lookbackMillis: number, options: { readonly fundingWhole?: boolean } = {}): BothAccounts => {
  const keep = (bill: WireBill) => Number(bill.cTime) >= now - lookbackMillis
  return {
    funding: options.fundingWhole === true ? all.funding : all.funding.filter(keep),
    spot: all.spot.filter(keep)
  }
}

const noteLine = /^(funding|spot): the exchange serves bills from (\S+) on; older ones are out of its reach$/

/**
 * One line per account names where the served history begins: at or after the horizon, and at
 * or before the oldest bill served.
 */
const expectServedFromNotes = (
  result: CliResult,
  lookbackMillis: number,
  accounts: ReadonlyArray<"funding" | "spot">
) => {
  const notes = result.stderr.split("\n").flatMap((line) => {
    const found = noteLine.exec(line)
    return found === null ? [] : [{ account: found[1] as "funding" | "spot", at: Date.parse(found[2] as string) }]
  })
  expect(notes.map((note) => note.account).sort()).toEqual(accounts)
  const expected = served(lookbackMillis)
  for (const note of notes) {
    expect(note.at).toBeGreaterThanOrEqual(now - lookbackMillis)
    expect(note.at).toBeLessThanOrEqual(Number(expected[note.account][0]?.cTime))
  }
}

/**
 * The window a store read says it holds (stderr of `export --db`, stdout of `audit --db`): for a
 * clipped kind, from where the served history began (at or after the horizon, at or before the
 * oldest bill served); for a kind read whole, from the start.
 */
const expectCoverage = (text: string, account: "funding" | "spot", clipped: boolean) => {
  const found = new RegExp(
    `^${account}: the store holds every bill (?:from (\\S+) )?up to \\S+ \\(\\d+ bills\\)$`,
    "m"
  ).exec(text)
  if (found === null) return expect.fail(`no whole window of ${account} in: ${text}`)
  if (!clipped) return expect(found[1]).toBeUndefined()
  const from = Date.parse(found[1] as string)
  expect(from).toBeGreaterThanOrEqual(now - lookback)
  expect(from).toBeLessThanOrEqual(Number(served(lookback)[account][0]?.cTime))
}

describe.each(versions)("WEEX_API_VERSION=%s against a fake serving the last ~90 of 180 days", (version) => {
  describe.each([false, true])("with a width limit of 20 days on top: %s", (wide) => {
    const server = () => servers.get(key(version, wide)) as FakeExchangeServerService

    for (const from of [[], ["--from", "2020-01-01"]]) {
      it(`bills export --account all ${from.join(" ") || "(no --from)"}: exit 0, every served bill, the clip said`, async () => {
        const result = await runCli(["export", "--account", "all", ...from], env(server(), version))
        expect(result.stderr).not.toMatch(/40704|-1170|HistoryLimit/)
        expect(result.code).toBe(0)
        // With no --from and no width limit, funding sends no start bound: nothing is refused or clipped.
        const fundingWhole = from.length === 0 && !wide
        expectTaggedNdjsonExport(result.stdout, served(lookback, { fundingWhole }))
        expectServedFromNotes(result, lookback, fundingWhole ? ["spot"] : ["funding", "spot"])
      }, 60_000)
    }

    it("bills sync (no --from): exit 0; the store holds every served bill, reads whole and audits clean", async () => {
      const db = tempStore()
      const sync = await runCli(["sync", "--db", db], env(server(), version))
      expect(sync.code).toBe(0)
      expectServedFromNotes(sync, lookback, wide ? ["funding", "spot"] : ["spot"])
      // Read without --partial: a store clipped to the horizon is whole, not "unfinished".
      const stored = await runCli(["export", "--account", "all", "--db", db], env(server(), version, offline))
      expect(stored.stderr).not.toContain("unfinished")
      expect(stored.code).toBe(0)
      expectTaggedNdjsonExport(stored.stdout, served(lookback, { fundingWhole: !wide }))
      const audit = await runCli(["audit", "--account", "all", "--db", db], env(server(), version, offline))
      expect(audit.stdout).toContain("whole: every chain holds")
      expect(audit.code).toBe(0)
      // The window recorded is the one the store holds: from the served history's start, not from 1970.
      for (const text of [stored.stderr, audit.stdout]) {
        expectCoverage(text, "funding", wide)
        expectCoverage(text, "spot", true)
      }
    }, 90_000)
  })
})

describe.each(versions)("WEEX_API_VERSION=%s: the horizon passes a saved cursor", (version) => {
  it("a sync interrupted part-way, the horizon moved 30 days on: the next sync exits 0 and holds every served bill", async () => {
    const server = servers.get(key(version, true)) as FakeExchangeServerService
    const exchange = server.exchange
    await Effect.runPromise(exchange.configure({ lookbackMillis: lookback, maxWindowMillis: width }))
    const db = tempStore()
    const start = (await Effect.runPromise(exchange.requests)).length
    const run = startCli(["sync", "--db", db, "--max-rps", "2"], env(server, version))
    // Interrupted once pages of both kinds were served, with most of the history still to read.
    const pagesServed = async (operation: string) =>
      (await Effect.runPromise(exchange.requests)).slice(start).filter(
        (request) =>
          request.operation === operation &&
          request.outcome._tag === "Answered" &&
          request.outcome.status === 200 &&
          // Not the one-record probes that find the horizon: pages of bills.
          !/"(pageSize|limit)":"?1"?[,}]/.test(request.body)
      ).length
    while ((await pagesServed("fundingBills")) < 3 || (await pagesServed("spotBills")) < 3) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    run.child.kill("SIGINT")
    const interrupted = await run.result
    expect(interrupted.code).toBe(130)
    // Something was kept: the next sync resumes from a saved cursor, not from nothing.
    expect(interrupted.stderr).toMatch(/(funding|spot): interrupted, [1-9]\d* new bills? kept/)
    try {
      await Effect.runPromise(exchange.configure({ lookbackMillis: laterLookback }))
      const again = await runCli(["sync", "--db", db], env(server, version))
      expect(again.stderr).not.toMatch(/40704|-1170|HistoryLimit/)
      expect(again.code).toBe(0)
      const stored = await runCli(["export", "--account", "all", "--db", db], env(server, version, offline))
      expect(stored.stderr).not.toContain("no sync into the store has finished")
      expect(stored.stderr).not.toContain("unfinished")
      expect(stored.code).toBe(0)
      // Every bill served now, exactly; older ones the first run kept may stay (they were served then).
      const servedNow = served(laterLookback)
      const kept = new Set(
        stored.stdout
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => line)
      )
      const held = (account: "funding" | "spot") => (bill: WireBill) =>
        servedNow[account].includes(bill as never) ||
        kept.has(`{"account":"${account}",${JSON.stringify(bill).slice(1)}`)
      expectTaggedNdjsonExport(stored.stdout, {
        funding: all.funding.filter(held("funding")),
        spot: all.spot.filter(held("spot"))
      })
    } finally {
      await Effect.runPromise(exchange.configure({ lookbackMillis: lookback }))
    }
  }, 90_000)
})
