/**
 * The one line `bills` prints for a failure whose own message speaks the library's words.
 */
import { BillsApiError, BillsTransportError } from "@account-bills/core"
import { StoreUnavailable } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigError from "effect/ConfigError"
import { describeFailure } from "../src/cli/FailureMessage.js"
import { explainMissing } from "../src/internal/environment.js"

const now = Date.UTC(2026, 10, 24, 12, 0, 0)

describe("describeFailure", () => {
  it("names every missing WEEX_* variable with what it is", () => {
    const error = ConfigError.And(
      ConfigError.MissingData(["WEEX_API_KEY"], "<redacted>"),
      ConfigError.MissingData(["WEEX_API_PASSPHRASE"], "<redacted>")
    )
    expect(describeFailure(error, now)).toBe(
      "WEEX_API_KEY is not set: the API key of your WEEX account (read permission is enough); WEEX_API_PASSPHRASE is not set: the passphrase chosen when the API key was made (bills --help lists the WEEX_* variables)"
    )
  })

  it("a refused connection: where, and what to check", () => {
    const error = new BillsTransportError({
      operation: "fundingBills",
      reason: "Transport",
      description: "Transport error (POST http://127.0.0.1:9/api/v2/account/fundingBills)"
    })
    expect(describeFailure(error, now)).toBe(
      "fundingBills: could not connect to the exchange at http://127.0.0.1:9: the connection was refused or dropped; check WEEX_BASE_URL and the network"
    )
  })

  it("code 40704 names the earliest time the exchange serves", () => {
    const error = new BillsApiError({
      operation: "spotBills",
      reason: "HistoryLimit",
      code: "40704",
      msg: "Only the last three months can be queried",
      status: 400
    })
    expect(describeFailure(error, now)).toBe(
      "spotBills: the exchange serves no bills that old (code 40704; it serves about the last three months, from 2026-08-26T12:00:00.000Z on): use a later --from"
    )
  })

  it("a store that cannot be opened: a sentence, not the driver's ConnectionFailed(...)", () => {
    const sqlite = new StoreUnavailable({
      target: "/nope/bills.sqlite",
      reason: 'ConnectionFailed("Unable to open connection to local database /nope/bills.sqlite: 14")'
    })
    expect(describeFailure(sqlite, now)).toBe(
      "cannot use the store /nope/bills.sqlite: SQLite cannot open the file there: its folder does not exist or cannot be written"
    )
    const pg = new StoreUnavailable({
      target: "postgres://u@127.0.0.1:9/db",
      reason: "connect ECONNREFUSED 127.0.0.1:9"
    })
    expect(describeFailure(pg, now)).toBe(
      "cannot use the store postgres://u@127.0.0.1:9/db: no PostgreSQL server answers at 127.0.0.1:9 (the connection was refused)"
    )
  })

  it("any other failure reads as its own message", () => {
    const error = new BillsApiError({
      operation: "spotBills",
      reason: "Authentication",
      code: "40009",
      msg: "sign error",
      status: 400
    })
    expect(describeFailure(error, now)).toBe(error.message)
  })
})

describe("explainMissing (NodeBillsApi.layerConfig)", () => {
  it("replaces the redacted message of a missing variable with what the variable is", () => {
    const error = explainMissing(
      ConfigError.And(
        ConfigError.MissingData(["WEEX_API_SECRET"], "<redacted>"),
        ConfigError.MissingData(["OTHER"], "x")
      )
    )
    expect(error.toString()).toBe(
      '(Missing data at WEEX_API_SECRET: "the secret of that API key is not set") and (Missing data at OTHER: "x")'
    )
  })
})
