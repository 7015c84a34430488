import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer } from "@account-bills/node"
import { NodeBillsApi } from "@account-bills/node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expectCsvExport } from "../packages/node/test/support/exportCheck.js"
import { exportMonthCsv } from "./export-csv.js"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

describe("example: export a date range to CSV", () => {
  it.live("writes exactly the bills of the range, over HTTP on loopback", () =>
    Effect.gen(function* () {
      const server = yield* FakeExchangeServer.make({ generate: { seed: 5, funding: 0, spot: 400 } })
      const all = yield* server.exchange.bills("spot")
      const times = all.map((bill) => Number(bill.cTime)).sort((a, b) => a - b)
      const from = new Date(times[100] ?? 0)
      const to = new Date(times[300] ?? 0)
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "example-csv-")), "range.csv")
      const summary = yield* exportMonthCsv(from, to, out).pipe(
        Effect.provide(NodeBillsApi.layer(credentials, { config: { baseUrl: server.url } }))
      )
      const expected = all.filter((bill) => Number(bill.cTime) >= from.getTime() && Number(bill.cTime) < to.getTime())
      expect(summary.bills).toBe(expected.length)
      // Every column of every row, exactly as the exchange sent it.
      expectCsvExport(fs.readFileSync(out, "utf8"), "spot", expected)
    }).pipe(Effect.scoped)
  )
})
