/**
 * Every time the books write (tax file dates, journal dates and times) is the same UTC instant
 * whatever the process's time zone: the files are written in-process under UTC, Asia/Kolkata
 * (+05:30) and America/New_York (a daylight-saving change inside the data), each held to the UTC
 * times written out, and a `node` child started with each `TZ` prints the same bytes. `.ci/run`
 * also runs the books and core suites whole under both zones.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { instants, writtenFiles } from "../support/writtenTimes.js"

const zones = ["UTC", "Asia/Kolkata", "America/New_York"] as const
const original = process.env.TZ

/** Runs `f` with the process in `zone` (Node reads `TZ` again whenever it is set). */
const inZone = <A>(zone: string, f: () => A): A => {
  process.env.TZ = zone
  try {
    return f()
  } finally {
    if (original === undefined) delete process.env.TZ
    else process.env.TZ = original
  }
}

afterEach(() => {
  if (original === undefined) delete process.env.TZ
  else process.env.TZ = original
})

/** What each file must hold for each instant, cut from the ISO text by hand, not by the code. */
const expectedTimes = (iso: string) => {
  const [date, rest] = iso.split("T") as [string, string]
  const hms = rest.slice(0, 8)
  return {
    "koinly.csv": `${date} ${hms.slice(0, 5)} UTC`,
    "cointracking.csv": `${date} ${hms}`,
    "bittytax.csv": `${date}T${rest.slice(0, 12)} UTC`
  }
}

/** The date on the header of each journal transaction whose `time` is `iso`. */
const journalDates = (text: string, iso: string): Array<string> =>
  text
    .split("\n\n")
    .filter((block) => block.includes(`time: ${iso}`) || block.includes(`time: "${iso}"`))
    .map((block) => block.slice(0, 10))

describe("written times are UTC whatever the process's zone", () => {
  it("the zones differ here: the test would see a local time", () => {
    const offsets = zones.map((zone) => inZone(zone, () => new Date(Date.UTC(2025, 2, 9, 12)).getTimezoneOffset()))
    expect(offsets).toEqual([0, -330, 240])
  })

  // Mutations: TaxFiles' `getUTCDate`/`getUTCHours` -> `getDate`/`getHours`; the journal's dates
  // or times from a local `Date`.
  for (const zone of zones) {
    it(`${zone}: every tax file row and journal transaction carries its UTC date and time`, () => {
      const files = inZone(zone, writtenFiles)
      for (const iso of instants) {
        for (const [name, text] of Object.entries(expectedTimes(iso))) {
          // Three bills at each instant: three rows, each at the UTC time.
          const rows = (files[name] as string).split("\n").filter((row) => row.includes(text))
          expect(rows, `${name} at ${iso}`).toHaveLength(3)
        }
        for (const format of ["hledger", "ledger", "beancount"]) {
          const dates = journalDates(files[`${format}.journal`] as string, iso)
          // Three bills' transactions (the first instant also opens the balances), each on the UTC day.
          expect(dates.length, `${format} at ${iso}`).toBeGreaterThanOrEqual(3)
          expect(new Set(dates), `${format} at ${iso}`).toEqual(new Set([iso.slice(0, 10)]))
        }
      }
    })
  }

  it("the same bytes in every zone, in this process", () => {
    const utc = inZone("UTC", writtenFiles)
    for (const zone of zones) expect(inZone(zone, writtenFiles)).toEqual(utc)
  })

  it("the same bytes from a node process started in each zone", () => {
    const utc = JSON.stringify(inZone("UTC", writtenFiles))
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "../support/writtenTimes.ts")
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..")
    for (const zone of zones) {
      const child = spawnSync(process.execPath, ["--conditions=@account-bills/source", "--import", "tsx", script], {
        cwd: root,
        env: { ...process.env, TZ: zone },
        encoding: "utf8",
        maxBuffer: 1 << 26
      })
      expect(child.status, child.stderr).toBe(0)
      expect(child.stdout, `written under TZ=${zone}`).toBe(utc)
    }
  }, 60_000)
})
