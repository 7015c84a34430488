/**
 * The label rule at its edge, as docs/many-accounts.md states it: 1 to 64 characters. Labels of
 * every length from the rule's own alphabet: 64 and fewer are labels, 65 and more are not.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isLabel, labelRule } from "../src/index.js"

const first = "abcXYZ019"
const rest = "abcXYZ019._-@+"
const labelOf = (length: number, seed: number) =>
  Array.from({ length }, (_, i) => {
    const alphabet = i === 0 ? first : rest
    return alphabet[(seed + i * 7) % alphabet.length]
  }).join("")

describe("the label rule", () => {
  it("says 64, and means it: 64 characters are a label, 65 are not", () => {
    expect(labelRule).toContain("1 to 64 characters")
    expect(isLabel("a".repeat(64))).toBe(true)
    expect(isLabel("a".repeat(65))).toBe(false)
    expect(isLabel("A")).toBe(true)
    expect(isLabel("")).toBe(false)
  })

  it("any length from the rule's alphabet: a label exactly when 1 to 64 characters", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.nat(), (length, seed) => {
        expect(isLabel(labelOf(length, seed))).toBe(length <= 64)
      })
    )
  })
})
