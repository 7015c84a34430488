/**
 * A key the futures interface refuses, in process: funding and spot come from the fake exchange
 * through the real client; the contract walk is refused as the exchange refuses a key without
 * futures permission (a `BillsApiError` of `contractBills`, reason Permission). With all accounts
 * the export says so and writes the other two whole; with the futures account alone it fails with
 * `FuturesRefused`, whose message says what to do. A funding or spot refusal is never taken for it.
 */
import { BillsApi, BillsApiError } from "@account-bills/core"
import { FakeExchange, TestBillsApi } from "@account-bills/core/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { exportBills } from "../src/cli/ExportBills.js"
import { futuresRefusal, skippedLine } from "../src/cli/FuturesRefused.js"

const refusal = (operation: "contractBills" | "spotBills") =>
  new BillsApiError({
    operation,
    reason: "Permission",
    code: "40014",
    msg: "Incorrect permissions",
    status: 403
  })

/** The fake exchange's funding and spot bills; the futures interface refuses the key. */
const refusingFutures = Layer.effect(
  BillsApi,
  Effect.map(BillsApi, (api) => ({
    ...api,
    streamContractPages: () => Stream.fail(refusal("contractBills"))
  }))
).pipe(
  Layer.provideMerge(
    TestBillsApi.layerStack({
      exchange: { rateLimit: false, generate: { seed: 5, funding: 230, spot: 410 } }
    })
  )
)

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "futures-refused-")), "out.ndjson")

describe("a key the futures interface refuses", () => {
  it.effect("--account all: the other two accounts are written whole, and the summary names the refusal", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 4, 1))
      const out = tempFile()
      const summary = yield* exportBills(
        { account: "all", format: "ndjson", out },
        { live: false, requests: () => Effect.succeed(0) }
      )
      const fake = yield* FakeExchange
      const lines = fs.readFileSync(out, "utf8").trimEnd().split("\n")
      expect(lines).toHaveLength((yield* fake.bills("funding")).length + (yield* fake.bills("spot")).length)
      expect(lines.filter((line) => line.startsWith('{"account":"contract"'))).toEqual([])
      expect(summary.accounts.map((account) => [account.account, account.bills])).toEqual([
        ["funding", 230],
        ["spot", 410]
      ])
      expect(summary.contractRefused?._tag).toBe("FuturesRefused")
      expect(skippedLine(summary.contractRefused as NonNullable<typeof summary.contractRefused>)).toBe(
        "contract: skipped, the exchange refuses this API key on the futures interface (Permission, code 40014, HTTP 403: Incorrect permissions); funding and spot are read on"
      )
    }).pipe(Effect.provide(refusingFutures))
  )

  it.effect("--account contract: fails with FuturesRefused, saying what to do, and writes nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2025, 4, 1))
      const out = tempFile()
      const error = yield* Effect.flip(
        exportBills({ account: "contract", format: "ndjson", out }, { live: false, requests: Effect.succeed(0) })
      )
      expect(error._tag).toBe("FuturesRefused")
      expect(error.message).toBe(
        "contract: the exchange refuses this API key on the futures interface (Permission, code 40014, HTTP 403: Incorrect permissions): the key has no futures (contract) read permission, or the account has no futures account; give the key futures read permission on the exchange (or use a key that has it), or read the other accounts with --account funding or --account spot"
      )
      expect(fs.readFileSync(out, "utf8")).toBe("")
    }).pipe(Effect.provide(refusingFutures))
  )

  it("only the futures interface's refusal of the key is one: not spot's, not a contract parameter error", () => {
    expect(futuresRefusal(refusal("spotBills"))).toBeUndefined()
    expect(
      futuresRefusal(
        new BillsApiError({
          operation: "contractBills",
          reason: "InvalidParameter",
          code: "40017",
          msg: "x",
          status: 400
        })
      )
    ).toBeUndefined()
    expect(futuresRefusal(refusal("contractBills"))?.code).toBe("40014")
  })
})
