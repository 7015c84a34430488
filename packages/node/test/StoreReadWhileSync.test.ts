/**
 * Reading a store while a sync writes it, as an operator does beside a fleet: `bills export
 * --db` in a loop, each run a process of its own, while `bills sync` processes add new bills.
 * Every read exits 0 and holds exactly the exchange's bills up to the end it names on stderr
 * (what the store held completely when it began), however far the sync under way has come.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { engines } from "../../store/test/support/engines.js"
import { exchangeEnv, runCli, startCli } from "./support/runCli.js"
import { fileExchange } from "./support/fileExchange.js"

const server = fileExchange({
  rateLimit: false,
  generate: { seed: 3_801, funding: 300, spot: 600, sameMillisecondGroup: { every: 30, size: 4 } }
})

const kinds = ["funding", "spot"] as const
type Kind = (typeof kinds)[number]

/** What the exchange holds of `kind` before `end` (exclusive), each bill as the JSON it serves. */
const exchangeBefore = async (kind: Kind, end: number) =>
  (await Effect.runPromise(server.exchange.bills(kind)))
    .filter((bill) => Number(bill.cTime) < end)
    .map((bill) => JSON.stringify(bill))
    .sort()

/** The end each kind's stderr line names: "<kind>: the store holds every bill up to <ISO>...". */
const namedEnd = (stderr: string, kind: Kind): { readonly end: number; readonly underWay: boolean } => {
  const line = stderr.split("\n").find((l) => l.startsWith(`${kind}: `)) ?? ""
  const iso = /^\S+ the store holds every bill up to (\S+?Z)[ ;]/.exec(line)?.[1]
  expect(iso, `no end named for ${kind} in: ${stderr}`).toBeDefined()
  return { end: Date.parse(iso ?? ""), underWay: line.includes("a newer sync is under way or unfinished") }
}

/** The bills of one kind in an export of both accounts, without the tag that says whose they are. */
const exported = (stdout: string, kind: Kind) =>
  stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.account === kind)
    .map(({ account: _, ...bill }) => JSON.stringify(bill))
    .sort()

describe.each(engines)("reading a store while a sync writes it ($name)", (engine) => {
  it("every read exits 0 and holds exactly the exchange's bills up to the end it names; none refused", async () => {
    const db = await Effect.runPromise(Effect.map(engine.fresh, (target) => target.display))
    const env = exchangeEnv(server.url)
    const first = await runCli(["sync", "--db", db, "--account", "all"], env)
    expect(first.code, first.stderr).toBe(0)

    let reads = 0
    let duringSync = 0
    for (let round = 0; round < 2; round++) {
      // New bills from now on, about one a millisecond; the sync reads them at 3 requests a
      // second per kind, so it is under way for ten seconds or so.
      await Effect.runPromise(server.exchange.appendGenerated("funding", 1_500))
      await Effect.runPromise(server.exchange.appendGenerated("spot", 3_000))
      const sync = startCli(["sync", "--db", db, "--account", "all", "--max-rps", "3"], env)
      let running = true
      const ended = sync.result.then((result) => {
        running = false
        return result
      })
      do {
        const read = await runCli(["export", "--account", "all", "--db", db], env)
        expect(read.code, read.stderr).toBe(0)
        reads += 1
        for (const kind of kinds) {
          const { end, underWay } = namedEnd(read.stderr, kind)
          // Only a sync under way leaves one unfinished: each one here ends whole.
          if (underWay) duringSync += 1
          expect(exported(read.stdout, kind)).toEqual(await exchangeBefore(kind, end))
        }
      } while (running)
      const result = await ended
      expect(result.code, result.stderr).toBe(0)
    }
    // The loop read while the syncs were under way, not only between them.
    expect(duringSync).toBeGreaterThanOrEqual(2)
    console.log(`store read while syncing (${engine.name}): ${reads} reads, ${duringSync} kinds read mid-sync`)
  }, 300_000)
})
