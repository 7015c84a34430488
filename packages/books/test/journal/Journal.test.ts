/**
 * The journal's text: symbols each tool accepts, names a user gives checked, what goes to
 * suspense listed with its bill ids, bill ids on every transaction, the same text on every run.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { Journal, LedgerEvents } from "../../src/index.js"
import { generate } from "../support/keyAccounts.js"

const eventsOf = (seed: number, count: number) =>
  Effect.runSync(LedgerEvents.fromEntries(generate(seed, count).entries))

describe("Journal.write", () => {
  it("declares each odd coin under a symbol the tool accepts, with its real name", () => {
    const events = eventsOf(5, 200)
    const beancount = Effect.runSync(Journal.write("beancount", events)).text
    expect(beancount).toMatch(/^\d{4}-\d\d-\d\d commodity X1INCH\n {2}name: "1INCH"$/m)
    expect(beancount).toMatch(/^\d{4}-\d\d-\d\d commodity BTC-PERP\n {2}name: "btc-perp"$/m)
    expect(beancount).toMatch(/^\d{4}-\d\d-\d\d commodity AVERYLONGCOINNAMEBEYONDT\n/m)
    expect(beancount).toMatch(/ open Assets:WEEX:Spot:X1INCH X1INCH$/m)
    const hledger = Effect.runSync(Journal.write("hledger", events)).text
    expect(hledger).toMatch(/^commodity "1INCH"$/m)
    expect(hledger).toMatch(/^commodity "btc-perp"$/m)
    expect(hledger).toMatch(/^commodity USDT$/m)
    const ledger = Effect.runSync(Journal.write("ledger", events)).text
    expect(ledger).toMatch(/^tag bills$/m)
  })

  it("writes the same text on every run, with the bill ids of every event", () => {
    const events = eventsOf(6, 300)
    for (const format of ["hledger", "ledger", "beancount"] as const) {
      const once = Effect.runSync(Journal.write(format, events))
      expect(Effect.runSync(Journal.write(format, events)).text).toBe(once.text)
      const written = new Set(
        [...once.text.matchAll(/bills: "?([\d ]+)"?/g)].flatMap((match) => (match[1] as string).split(" "))
      )
      const billIds = events.events.flatMap((event) => event.entries.map((entry) => entry.bill.billId))
      expect(billIds.filter((id) => !written.has(id))).toEqual([])
      expect(once.transactions).toBe(events.events.length + (once.text.includes("Opening") ? 1 : 0))
    }
  })

  it("books unpaired legs and unknown business types against suspense and lists each", () => {
    const events = eventsOf(7, 400)
    const journal = Effect.runSync(Journal.write("hledger", events))
    const suspended = events.events.filter((event) => event._tag === "Unpaired" || event._tag === "Other")
    expect(suspended.length).toBeGreaterThan(0)
    const listed = new Set(journal.suspense.flatMap((entry) => entry.billIds))
    for (const event of suspended) for (const entry of event.entries) expect(listed).toContain(entry.bill.billId)
    expect(journal.text).toMatch(/^ {4}Equity:WEEX:Suspense {2}/m)
    expect(journal.text).toMatch(/^ {4}; suspense: unpaired trade_(in|out) \(no-counterpart\)$/m)
  })

  it("takes the names a user gives and refuses one the tool would not accept", () => {
    const events = eventsOf(8, 50)
    const renamed = Effect.runSync(
      Journal.write("beancount", events, { accountNames: { spot: "Assets:Exchange:Weex-Spot", fees: "Expenses:Fees" } })
    )
    expect(renamed.text).toMatch(/ open Assets:Exchange:Weex-Spot:USDT USDT$/m)
    const refused = Effect.runSync(
      Effect.either(Journal.write("beancount", events, { accountNames: { spot: "Assets:weex spot" } }))
    )
    expect(Either.isLeft(refused) && refused.left._tag).toBe("InvalidAccountName")
    expect(Either.isLeft(refused) && refused.left.message).toMatch(/spot .*does not suit beancount/)
    const twice = Effect.runSync(
      Effect.either(Journal.write("hledger", events, { accountNames: { fees: "Expenses:WEEX:Losses" } }))
    )
    expect(Either.isLeft(twice) && twice.left.message).toMatch(/has this name already/)
  })
})
