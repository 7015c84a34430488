/**
 * The books' names at their old home (`@account-bills/core/books`, deprecated for one release)
 * are the books' own namespaces, not copies: the same functions, the same schemas.
 */
import * as Old from "@account-bills/core/books"
import { describe, expect, it } from "@effect/vitest"
import { Journal, Ledger, LedgerEvents, TaxFiles } from "../src/index.js"

describe("the deprecated path @account-bills/core/books", () => {
  it("gives the very namespaces of @account-bills/books", () => {
    expect(Old.Ledger).toBe(Ledger)
    expect(Old.LedgerEvents).toBe(LedgerEvents)
    expect(Old.TaxFiles).toBe(TaxFiles)
    expect(Old.Journal).toBe(Journal)
  })

  it("gives the same functions", () => {
    expect(Old.Ledger.audit).toBe(Ledger.audit)
    expect(Old.Ledger.stream).toBe(Ledger.stream)
    expect(Old.LedgerEvents.fromEntries).toBe(LedgerEvents.fromEntries)
    expect(Old.TaxFiles.line).toBe(TaxFiles.line)
    expect(Old.Journal.write).toBe(Journal.write)
  })
})
