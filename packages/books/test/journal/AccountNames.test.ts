/**
 * The account names each tool accepts, as `docs/internals/journals.md` gives its grammar: a name
 * a user maps a role to is checked before anything is fetched, and a refusal says which rule.
 * hledger and Ledger: no leading or trailing space, no tab, newline, ';' or two spaces in a row,
 * no empty ':' part. Beancount: a root type, then parts that start with a capital or a digit and
 * hold letters, digits and '-' only.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { Journal } from "../../src/index.js"

const plain: ReadonlyArray<readonly [string, boolean]> = [
  ["Assets:WEEX:Spot", true],
  ["Assets:my spot", true],
  ["Assets:1", true],
  ["", false],
  [" Assets:Spot", false],
  ["Assets:Spot ", false],
  ["Assets:a\tb", false],
  ["Assets:a;b", false],
  ["Assets:a\nb", false],
  ["Assets:a  b", false],
  ["Assets::Spot", false],
  [":Assets", false],
  ["Assets:", false]
]
const beancount: ReadonlyArray<readonly [string, boolean]> = [
  ["Assets:WEEX:Spot", true],
  ["Assets:1INCH", true],
  ["Equity:A-B", true],
  ["Assets:weex", false],
  ["Things:Spot", false],
  ["xAssets:Spot", false],
  ["Assets:Spot x", false],
  ["Assets:A_B", false],
  ["Assets", false]
]

describe("account names each tool accepts", () => {
  // Mutations in internal/journalNames.ts' accountNameProblem: each check of the plain tools
  // made `false` or its halves swapped (`||` -> `&&`, `split(":").some` -> `every`), the two-
  // space pattern loosened (`\s\s` -> `\S\s`), Beancount's pattern without `^` or `$`, a rule's
  // text emptied.
  const cases = [
    ...(["hledger", "ledger"] as const).flatMap((format) => plain.map((c) => [format, ...c] as const)),
    ...beancount.map((c) => ["beancount", ...c] as const)
  ]
  for (const [format, name, accepted] of cases) {
    it(`${format}: ${JSON.stringify(name)} ${accepted ? "accepted" : "refused, naming the rule"}`, () => {
      const result = Effect.runSync(Effect.either(Journal.checkAccountNames(format, { spot: name })))
      expect(Either.isRight(result)).toBe(accepted)
      if (Either.isLeft(result)) {
        expect(result.left.key).toBe("spot")
        expect(result.left.rule.length).toBeGreaterThan(20)
      }
    })
  }
})
