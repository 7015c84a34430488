/**
 * The flags' own checks, the TIME values and the two adjustments of what @effect/cli does by
 * itself (where `--log-level` may stand, when help has colours).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { wholeNumber } from "../src/cli/Flags.js"
import { hoistLogLevel, wantsColour } from "../src/cli/main.js"
import { parseTime } from "../src/cli/TimeFlag.js"

const decode = (flag: string, min: number, max: number | undefined, text: string) =>
  Either.mapLeft(Schema.decodeEither(wholeNumber(flag, min, max))(text), (error) => error.message)

describe("whole-number flags", () => {
  it("take whole numbers in range and refuse the rest by the flag's name", () => {
    expect(decode("max-rps", 1, undefined, "12")).toEqual(Either.right(12))
    expect(decode("concurrency", 1, 64, "64")).toEqual(Either.right(64))
    expect(decode("max-rps", 1, undefined, "abc")).toEqual(
      Either.left('--max-rps takes a whole number 1 or more, got "abc"')
    )
    expect(decode("concurrency", 1, 64, "65")).toEqual(
      Either.left('--concurrency takes a whole number from 1 to 64, got "65"')
    )
    expect(decode("overlap", 0, undefined, "1.5")).toEqual(
      Either.left('--overlap takes a whole number 0 or more, got "1.5"')
    )
  })
})

describe("parseTime", () => {
  it("reads ISO-8601 (UTC without a zone) and epoch milliseconds", () => {
    expect(parseTime("from", "2024-05-01")).toEqual(Either.right(Date.UTC(2024, 4, 1)))
    expect(parseTime("from", "1700000000000")).toEqual(Either.right(1_700_000_000_000))
    expect(parseTime("from", "0")).toEqual(Either.right(0))
  })

  it("refuses epoch seconds, saying what they would mean", () => {
    expect(parseTime("from", "1700000000")).toEqual(
      Either.left(
        "--from 1700000000 looks like epoch seconds (2023-11-14T22:13:20.000Z); TIME takes epoch milliseconds (1700000000000) or ISO-8601"
      )
    )
    expect(Either.isLeft(parseTime("to", "99999999999"))).toBe(true)
    expect(parseTime("to", "100000000000")).toEqual(Either.right(100_000_000_000))
  })
})

describe("hoistLogLevel", () => {
  it("moves --log-level to the front, where @effect/cli reads it, and leaves the rest in order", () => {
    expect(
      hoistLogLevel(["node", "bills", "export", "--account", "spot", "--log-level", "debug", "--out", "x"])
    ).toEqual(["node", "bills", "--log-level", "debug", "export", "--account", "spot", "--out", "x"])
    expect(hoistLogLevel(["node", "bills", "sync", "--log-level=info"])).toEqual([
      "node",
      "bills",
      "--log-level=info",
      "sync"
    ])
    expect(hoistLogLevel(["node", "bills", "export", "--account", "spot"])).toEqual([
      "node",
      "bills",
      "export",
      "--account",
      "spot"
    ])
  })
})

describe("wantsColour", () => {
  it("only on a terminal, and not when NO_COLOR is set", () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true)
    expect(wantsColour({ isTTY: false }, {})).toBe(false)
    expect(wantsColour({}, {})).toBe(false)
    expect(wantsColour({ isTTY: true }, { NO_COLOR: "1" })).toBe(false)
  })
  it("wherever FORCE_COLOR asks for them, and not when it says 0", () => {
    expect(wantsColour({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true)
    expect(wantsColour({}, { FORCE_COLOR: "true" })).toBe(true)
    expect(wantsColour({ isTTY: false }, { FORCE_COLOR: "0" })).toBe(false)
    expect(wantsColour({ isTTY: false }, { FORCE_COLOR: "" })).toBe(false)
  })
})
