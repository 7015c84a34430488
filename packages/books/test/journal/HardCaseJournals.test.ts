/**
 * The journals of the generated hard cases (see `support/hardCases.ts`), read by the tools
 * themselves: every tool accepts the file with its balance assertions; each account ends at the
 * exchange's balances, every coin apart although their names collide in the tool's rules; the
 * history starts from nothing, so the journal opens no balance, even where a chain's first
 * millisecond lists in id order otherwise than it chains; and suspense holds the bills of
 * unpaired legs and unknown types, each once, and nothing else.
 */
import { describe, expect } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as TestContext from "effect/TestContext"
import { Journal } from "../../src/index.js"
import { type HardCases, hardCaseOptions, readHardCases } from "../support/hardCases.js"
import { checkJournal, itWith, journalFile, tools } from "../support/journalTools.js"

const names = Journal.defaultAccountNames
const assets = { funding: names.funding, spot: names.spot } as const

let cases: Promise<HardCases> | undefined
const read = () => {
  cases ??= Effect.runPromise(readHardCases(hardCaseOptions(3)).pipe(Effect.provide(TestContext.TestContext)))
  return cases
}

describe("journals of the generated hard cases", () => {
  // Mutations: the first millisecond of a chain laid out in id order (journalPlan's
  // `orderGroup(at, group)` -> `group`: the journal opens at the deposit's balance); the
  // commodity names' `taken.add(component)` dropped (two colliding coins on one symbol: their
  // balances merge); a Trade's out-leg fee posted with its sign turned (lands on suspense).
  for (const tool of tools) {
    itWith(tool)(
      `${tool}: accepted, every coin apart at the exchange's balance, nothing opened, suspense as the rule says`,
      async () => {
        const { booked, events } = await read()
        const journal = Effect.runSync(Journal.write(tool, events))
        const result = checkJournal(tool, journalFile(journal.text, `hard.${tool}`))
        expect(result.ok, result.output).toBe(true)
        // The exchange's last balance of each account and coin that holds anything: the generator
        // lists each account's bills in chain order.
        const last = new Map<string, BigDecimal.BigDecimal>()
        for (const [account, bills] of [
          ["funding", booked.funding],
          ["spot", booked.spot]
        ] as const) {
          for (const bill of bills)
            last.set(`${account}\u0000${bill.coinName}`, BigDecimal.unsafeFromString(bill.afterAmount))
        }
        for (const [account, name] of Object.entries(assets)) {
          const expected = [...last]
            .filter(([key, amount]) => key.startsWith(`${account}\u0000`) && !BigDecimal.isZero(amount))
            .map(([, amount]) => BigDecimal.format(BigDecimal.normalize(amount)))
            .sort()
          const got = [...result.balances]
            .filter(([key, amount]) => key.startsWith(`${name}:`) && !BigDecimal.isZero(amount))
            .map(([, amount]) => BigDecimal.format(amount))
            .sort()
          expect(got, `${tool} ${name}`).toEqual(expected)
        }
        const opened = [...result.balances].filter(
          ([key, amount]) => key.startsWith(`${names.opening}\u0000`) && !BigDecimal.isZero(amount)
        )
        expect(opened, `${tool}: opening balances`).toEqual([])
        // Suspense: exactly the bills of unpaired and unknown-type events, each with its own change.
        const allowed = new Map<string, string>()
        for (const event of events.events) {
          if (event._tag === "Unpaired" || event._tag === "Other") {
            const change = event.change
            for (const entry of event.entries) {
              allowed.set(entry.bill.billId, `${change.account} ${change.coin} ${BigDecimal.format(change.amount)}`)
            }
          }
        }
        const suspended = new Map(
          journal.suspense.map((entry) => [
            entry.billIds.join(" "),
            `${entry.account} ${entry.coin} ${BigDecimal.format(BigDecimal.normalize(entry.amount))}`
          ])
        )
        expect(journal.suspense).toHaveLength(allowed.size)
        expect(Object.fromEntries(suspended)).toEqual(Object.fromEntries(allowed))
      }
    )
  }
})
