/**
 * What the exchange has published, read by the client: every sample under `samples/` is served
 * over a real socket (a loopback server, the platform's fetch HttpClient) to the real pipeline,
 * and every bill must come out with every digit of its id and amounts as the source printed them;
 * every failure with its typed reason; every server time read by the clock sync. Where two
 * samples disagree (an id as a number or a string, `coinId` 82 or "82", `ctime` or `time`), both
 * are here, and the client must read both. The expected values are written from the sources.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as BigDecimal from "effect/BigDecimal"
import * as Chunk from "effect/Chunk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import {
  BillsApi,
  BillsConfig,
  type BillsConfigInput,
  BillsRateLimiter,
  type ContractBill,
  type FundingBill,
  Signer,
  type SpotBill
} from "../../src/index.js"
import { credentials } from "../support/stubHttp.js"
import { answerBills, answerTime, type BillsOperation, billsPath, timePath } from "./corpusAnswers.js"
import { type Loopback, loopbackExchange } from "./loopbackExchange.js"
import { readSample, type Sample, sampleNames } from "./samples.js"

/** The test clock's time: after every bill of the corpus (a walk reads no further than its start). */
const now = 1_790_000_000_000
const day = 86_400_000

const apiLayer = (config: BillsConfigInput) =>
  BillsApi.layer.pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Signer.layer(credentials)),
    Layer.provide(BillsRateLimiter.layerUnlimited),
    // One attempt: a sample is one answer, and a retry would only ask the same again.
    Layer.provide(BillsConfig.layer({ maxAttempts: 1, ...config }))
  )

/** Runs `f` against the client configured for `server` (both hosts) and `version`. */
const withApi = <A, E>(
  config: BillsConfigInput,
  f: (api: BillsApi["Type"]) => Effect.Effect<A, E>
): Effect.Effect<A, unknown> => Effect.flatMap(BillsApi, f).pipe(Effect.provide(apiLayer(config)))

// ---------------------------------------------------------------------------------------------
// What each bills sample holds, written from its source.
// ---------------------------------------------------------------------------------------------

interface FundingExpected {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  readonly cTime: number
}

interface SpotExpected extends FundingExpected {
  readonly fillSize: string
  readonly fillValue: string
}

interface ContractExpected {
  readonly billId: string
  readonly coinName: string
  readonly symbol: string | null
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  readonly cTime: number
  readonly transferReason: string
}

type BillsCase =
  | {
      readonly operation: "fundingBills"
      readonly total: number
      readonly page: number
      readonly pageSize: number
      readonly hasNextPage: boolean
      readonly bills: ReadonlyArray<FundingExpected>
    }
  | { readonly operation: "spotBills"; readonly bills: ReadonlyArray<SpotExpected> }
  | {
      readonly operation: "contractBills"
      readonly hasNextPage: boolean | undefined
      readonly bills: ReadonlyArray<ContractExpected>
    }

const billsCases: Readonly<Record<string, BillsCase>> = {
  "v2-funding-bills-docs": {
    operation: "fundingBills",
    total: 1,
    page: 1,
    pageSize: 10,
    hasNextPage: false,
    bills: [
      {
        billId: "59335865",
        coinId: 2,
        coinName: "USDT",
        bizType: "transfer_in",
        deltaAmount: "100.00000000",
        afterAmount: "100.19000000",
        fees: "0.00000000",
        cTime: 1759306073919
      }
    ]
  },
  // total 12 with one item, pages 1, hasNextPage false: the fields disagree with each other.
  "v3-funding-bills-weexnet": {
    operation: "fundingBills",
    total: 12,
    page: 1,
    pageSize: 20,
    hasNextPage: false,
    bills: [
      {
        billId: "701234567890123456",
        coinId: 2,
        coinName: "USDT",
        bizType: "transfer_in",
        deltaAmount: "100.00000000",
        afterAmount: "910.00000000",
        fees: "0",
        cTime: 1764505800123
      }
    ]
  },
  "v3-funding-bills-ccxt-ledger-record": {
    operation: "fundingBills",
    total: 1,
    page: 1,
    pageSize: 10,
    hasNextPage: false,
    bills: [
      {
        billId: "16502414",
        coinId: 2,
        coinName: "USDT",
        bizType: "transfer_out",
        deltaAmount: "-100.00000000",
        afterAmount: "0.00000000",
        fees: "0.00000000",
        cTime: 1775664588931
      }
    ]
  },
  "v2-spot-bills-docs": {
    operation: "spotBills",
    bills: [
      {
        billId: "601797854712824762",
        coinId: 1,
        coinName: "BTC",
        bizType: "transfer_in",
        fillSize: "0",
        fillValue: "0",
        deltaAmount: "0.0040000000000000",
        afterAmount: "0.0040000000000000",
        fees: "0",
        cTime: 1743479789427
      }
    ]
  },
  "v3-spot-bills-weexnet": {
    operation: "spotBills",
    bills: [
      {
        billId: "701234567890123456",
        coinId: 2,
        coinName: "USDT",
        bizType: "trade_out",
        fillSize: "0.005",
        fillValue: "0",
        deltaAmount: "-100.00000000",
        afterAmount: "900.00000000",
        fees: "0.10000000",
        cTime: 1764505800123
      }
    ]
  },
  // The same bill as the static fixture's first record, with coinId a number (82) there a string.
  "v3-spot-bills-ccxt-ledger-record": {
    operation: "spotBills",
    bills: [
      {
        billId: "736825748291061726",
        coinId: 82,
        coinName: "DOGE",
        bizType: "trade_out",
        fillSize: "250.0",
        fillValue: "23.372500",
        deltaAmount: "-250.0",
        afterAmount: "49.70000000",
        fees: "0",
        cTime: 1775672947953
      }
    ]
  },
  // coinId "82" and "2" as strings, where the docs type an integer.
  "v3-spot-bills-ccxt-static": {
    operation: "spotBills",
    bills: [
      {
        billId: "736825748291061726",
        coinId: 82,
        coinName: "DOGE",
        bizType: "trade_out",
        fillSize: "250.0",
        fillValue: "23.372500",
        deltaAmount: "-250.0",
        afterAmount: "49.70000000",
        fees: "0",
        cTime: 1775672947953
      },
      {
        billId: "736825748291062750",
        coinId: 2,
        coinName: "USDT",
        bizType: "trade_in",
        fillSize: "250.0",
        fillValue: "23.372500",
        deltaAmount: "23.34912750",
        afterAmount: "85.25412750",
        fees: "0.02337250",
        cTime: 1775672947953
      },
      {
        billId: "736806838460221406",
        coinId: 2,
        coinName: "USDT",
        bizType: "trade_out",
        fillSize: "300.0",
        fillValue: "28.095000",
        deltaAmount: "-28.095000",
        afterAmount: "61.90500000",
        fees: "0",
        cTime: 1775668439498
      },
      {
        billId: "736806838460222430",
        coinId: 82,
        coinName: "DOGE",
        bizType: "trade_in",
        fillSize: "300.0",
        fillValue: "28.095000",
        deltaAmount: "299.70000000",
        afterAmount: "299.70000000",
        fees: "0.30000000",
        cTime: 1775668439498
      },
      {
        billId: "736791763770934238",
        coinId: 2,
        coinName: "USDT",
        bizType: "transfer_in",
        fillSize: "0",
        fillValue: "0",
        deltaAmount: "90.00000000",
        afterAmount: "90.00000000",
        fees: "0",
        cTime: 1775664845412
      }
    ]
  },
  // Bare, the id a JSON number above 2^53, `ctime` a number; one item and hasNextPage true.
  "v2-contract-bills-docs": {
    operation: "contractBills",
    hasNextPage: true,
    bills: [
      {
        billId: "686960019383517338",
        coinName: "USDT",
        symbol: "cmt_btcusdt",
        bizType: "position_funding",
        deltaAmount: "0.08266646",
        afterAmount: "4738.70667369",
        fees: "0",
        cTime: 1763784031721,
        transferReason: "UNKNOWN_TRANSFER_REASON"
      }
    ]
  },
  // The same bill on v3: symbol BTCUSDT where v2 says cmt_btcusdt; hasNextPage true, no nextKey.
  "v3-contract-bills-weexnet": {
    operation: "contractBills",
    hasNextPage: true,
    bills: [
      {
        billId: "686960019383517338",
        coinName: "USDT",
        symbol: "BTCUSDT",
        bizType: "position_funding",
        deltaAmount: "0.08266646",
        afterAmount: "4738.70667369",
        fees: "0",
        cTime: 1763784031721,
        transferReason: "UNKNOWN_TRANSFER_REASON"
      }
    ]
  },
  // nextKey null; the id and the time as strings.
  "v3-contract-bills-ccxt-funding-history": {
    operation: "contractBills",
    hasNextPage: false,
    bills: [
      {
        billId: "793622764958253481",
        coinName: "USDT",
        symbol: "VIRTUALUSDT",
        bizType: "position_funding",
        deltaAmount: "0.00000378",
        afterAmount: "29.36239410",
        fees: "0",
        cTime: 1789214411964,
        transferReason: "UNKNOWN_TRANSFER_REASON"
      }
    ]
  },
  // symbol null; the id a JSON number above 2^53.
  "v3-contract-bills-ccxt-ledger-record": {
    operation: "contractBills",
    hasNextPage: false,
    bills: [
      {
        billId: "736791763716407518",
        coinName: "USDT",
        symbol: null,
        bizType: "withdraw",
        deltaAmount: "-90.00000000",
        afterAmount: "106.00000000",
        fees: "0",
        cTime: 1775664845399,
        transferReason: "UNKNOWN_TRANSFER_REASON"
      }
    ]
  }
}

/** The page a record sample is served in; these wrappers are the test's, the record the source's. */
const pageOf = (sample: Sample): string => {
  if (sample.kind === "body") return sample.body
  if (sample.version !== "v3") throw new Error(`${sample.name}: record samples are wrapped for v3 only`)
  switch (sample.operation) {
    case "spotBills":
      return `[\n${sample.body}\n]`
    case "fundingBills":
      return `{"total": 1, "pageSize": 10, "pages": 1, "page": 1, "hasNextPage": false, "items": [\n${sample.body}\n]}`
    case "contractBills":
      return `{"hasNextPage": false, "items": [\n${sample.body}\n]}`
  }
  throw new Error(`${sample.name}: a ${sample.operation} record cannot be wrapped`)
}

// ---------------------------------------------------------------------------------------------
// Exactness: every field of every bill, the value and the text the server sent.
// ---------------------------------------------------------------------------------------------

/** A decimal exact to its digits: the value equal, and the raw text the one the source printed. */
const expectAmount = (actual: BigDecimal.BigDecimal, raw: unknown, expected: string, what: string) => {
  expect(
    BigDecimal.equals(actual, BigDecimal.unsafeFromString(expected)),
    `${what}: ${BigDecimal.format(actual)}`
  ).toBe(true)
  expect(raw, `${what} as sent`).toBe(expected)
}

const expectFunding = (bill: FundingBill, expected: FundingExpected) => {
  expect(bill.billId).toBe(expected.billId)
  expect(bill.coinId).toBe(expected.coinId)
  expect(bill.coinName).toBe(expected.coinName)
  expect(bill.bizType).toBe(expected.bizType)
  expectAmount(bill.deltaAmount, bill.raw.deltaAmount, expected.deltaAmount, `${expected.billId} deltaAmount`)
  expectAmount(bill.afterAmount, bill.raw.afterAmount, expected.afterAmount, `${expected.billId} afterAmount`)
  expectAmount(bill.fees, bill.raw.fees, expected.fees, `${expected.billId} fees`)
  expect(DateTime.toEpochMillis(bill.cTime)).toBe(expected.cTime)
}

const expectSpot = (bill: SpotBill, expected: SpotExpected) => {
  expectFunding(bill, expected)
  const fillSize = Option.getOrThrowWith(bill.fillSize, () => new Error(`${expected.billId}: no fillSize`))
  const fillValue = Option.getOrThrowWith(bill.fillValue, () => new Error(`${expected.billId}: no fillValue`))
  expectAmount(fillSize, bill.raw.fillSize, expected.fillSize, `${expected.billId} fillSize`)
  expectAmount(fillValue, bill.raw.fillValue, expected.fillValue, `${expected.billId} fillValue`)
}

const expectContract = (bill: ContractBill, expected: ContractExpected) => {
  expect(bill.billId).toBe(expected.billId)
  expect(bill.coinName).toBe(expected.coinName)
  expect(Option.getOrNull(bill.symbol)).toBe(expected.symbol)
  expect(bill.bizType).toBe(expected.bizType)
  const amountField = "income" in bill.raw ? "income" : "amount"
  expectAmount(bill.deltaAmount, bill.raw[amountField], expected.deltaAmount, `${expected.billId} ${amountField}`)
  expectAmount(bill.afterAmount, bill.raw.balance, expected.afterAmount, `${expected.billId} balance`)
  expectAmount(bill.fees, bill.raw.fillFee, expected.fees, `${expected.billId} fillFee`)
  expect(DateTime.toEpochMillis(bill.cTime)).toBe(expected.cTime)
  expect(Option.getOrNull(bill.transferReason)).toBe(expected.transferReason)
}

// ---------------------------------------------------------------------------------------------
// Serving one sample.
// ---------------------------------------------------------------------------------------------

const timesOf = (expected: BillsCase): ReadonlyArray<number> => expected.bills.map((bill) => bill.cTime)

/** A window around the sample's bills, well inside the 100 days one contract request may span. */
const windowAround = (expected: BillsCase) => {
  const times = timesOf(expected)
  return { from: Math.min(...times) - day, to: Math.max(...times) + day }
}

const serve = (sample: Sample, page: string, expected: BillsCase) =>
  loopbackExchange(
    answerBills({
      operation: expected.operation,
      version: sample.version,
      page,
      times: timesOf(expected),
      total: expected.operation === "fundingBills" ? expected.total : 0,
      now
    })
  )

const configFor = (server: Loopback, version: "v2" | "v3"): BillsConfigInput => ({
  baseUrl: server.url,
  contractBaseUrl: server.url,
  apiVersion: version
})

/** One call of the operation, with a window around the sample's bills. */
const oneCall = (sample: Sample, page: string, expected: BillsCase) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const server = yield* serve(sample, page, expected)
    const { from, to } = windowAround(expected)
    yield* withApi(configFor(server, sample.version), (api) =>
      Effect.gen(function* () {
        switch (expected.operation) {
          case "fundingBills": {
            const page = yield* api.fundingBills({ startTime: from, endTime: to })
            expect(page.total).toBe(expected.total)
            expect(page.page).toBe(expected.page)
            expect(page.pageSize).toBe(expected.pageSize)
            expect(page.hasNextPage).toBe(expected.hasNextPage)
            expect(page.items.length).toBe(expected.bills.length)
            for (const [i, bill] of expected.bills.entries()) expectFunding(page.items[i] as FundingBill, bill)
            return
          }
          case "spotBills": {
            const bills = yield* api.spotBills({ after: from, before: to })
            expect(bills.length).toBe(expected.bills.length)
            for (const [i, bill] of expected.bills.entries()) expectSpot(bills[i] as SpotBill, bill)
            return
          }
          case "contractBills": {
            const page = yield* api.contractBills({ startTime: from, endTime: to })
            expect(page.hasNextPage).toBe(expected.hasNextPage)
            expect(page.items.length).toBe(expected.bills.length)
            for (const [i, bill] of expected.bills.entries()) expectContract(page.items[i] as ContractBill, bill)
            return
          }
        }
      })
    )
    expect(server.received.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST ${billsPath[sample.version][expected.operation]}`
    ])
  })

/**
 * The operation's stream over a window around the sample's bills: every bill received is
 * delivered, once and exact. A stream may then fail, typed, where the sample's fields disagree
 * (the funding page that says total 12 and holds one item): what it must not do is drop a bill.
 */
const oneStream = (sample: Sample, page: string, expected: BillsCase) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const server = yield* serve(sample, page, expected)
    const query = { ...windowAround(expected), concurrency: 1 }
    const outcome = yield* withApi(configFor(server, sample.version), (api) => {
      const stream: Stream.Stream<FundingBill | SpotBill | ContractBill, unknown> =
        expected.operation === "fundingBills"
          ? api.streamFundingBills(query)
          : expected.operation === "spotBills"
            ? api.streamSpotBills(query)
            : api.streamContractBills(query)
      return Stream.runCollect(Stream.either(stream))
    })
    const items = Chunk.toReadonlyArray(outcome)
    const bills = items.filter(Either.isRight).map((item) => item.right)
    const failures = items.filter(Either.isLeft).map((item) => item.left)
    // Sorted by id: a stream's order is the server's, which one sample cannot show.
    const byId = [...bills].sort((a, b) => (a.billId < b.billId ? -1 : a.billId > b.billId ? 1 : 0))
    const wanted = [...expected.bills].sort((a, b) => (a.billId < b.billId ? -1 : a.billId > b.billId ? 1 : 0))
    expect(
      byId.map((bill) => bill.billId),
      `bills delivered (then ${failures.map(String).join("; ") || "the end"})`
    ).toEqual(wanted.map((bill) => bill.billId))
    wanted.forEach((want, i) => {
      const bill = byId[i]
      if (expected.operation === "contractBills") expectContract(bill as ContractBill, want as ContractExpected)
      else if (expected.operation === "spotBills") expectSpot(bill as SpotBill, want as SpotExpected)
      else expectFunding(bill as FundingBill, want as FundingExpected)
    })
    for (const failure of failures) {
      // Only what the sample itself leaves open may end the stream, typed, after its bills: the
      // funding page's fields that disagree (named), or the futures millisecond that a page said
      // more of and no cursor reads on (named).
      expect((failure as { readonly _tag?: unknown })._tag, String(failure)).toBe("BillsIncomplete")
      if (expected.operation === "fundingBills") expect(String(failure)).toMatch(/total/)
      else
        expect(timesOf(expected), String(failure)).toContain(
          (failure as { readonly millisecond?: unknown }).millisecond
        )
    }
    // A page that says there is more is never the end: the walk asks on (the cursor, or the
    // window narrowed past what it read), and hears the empty page that ends it.
    if (expected.operation === "contractBills" && expected.hasNextPage === true) {
      const asked = server.received.filter((request) => request.path === billsPath[sample.version].contractBills)
      expect(asked.length, "requests after a short page with hasNextPage true").toBeGreaterThan(1)
    }
  })

describe("corpus: every bill the exchange's public samples show", () => {
  for (const [name, expected] of Object.entries(billsCases)) {
    // Read (and a record wrapped) as the tests are defined: a sample that cannot be fails here.
    const sample = readSample(name)
    const page = pageOf(sample)
    it.scoped(`${name}: one ${expected.operation} call reads every bill exactly`, () => oneCall(sample, page, expected))
    it.scoped(`${name}: the ${expected.operation} stream delivers every bill, once, exactly`, () =>
      oneStream(sample, page, expected)
    )
  }
})

// ---------------------------------------------------------------------------------------------
// Server time.
// ---------------------------------------------------------------------------------------------

/** The server time each time sample shows, written from its source. */
const timeCases: Readonly<Record<string, number>> = {
  "v2-spot-time-ccxt-fork": 1622097118134,
  "v3-spot-time-ccxt-static": 1786304644759,
  "v3-contract-time-ccxt": 1764505776347,
  "v3-contract-time-probe": 1790134010126,
  "v2-contract-time-guide": 1765423487896,
  "v2-contract-time-openapi": 1716710918113
}

/** Per version, the spot-host time sample a futures-host one is paired with in the two-host test. */
const spotTimeOf = { v2: "v2-spot-time-ccxt-fork", v3: "v3-spot-time-ccxt-static" } as const

describe("corpus: server time as the exchange prints it", () => {
  for (const [name, serverTime] of Object.entries(timeCases)) {
    const sample = readSample(name)
    if (!sample.hosts.includes("spot")) continue
    it.scoped(`${name}: the clock sync reads ${serverTime}`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const path = timePath.spot[sample.version]
        const server = yield* loopbackExchange((request) => {
          const reply = answerTime(now, { [path]: sample.body })(request)
          return reply ?? { status: 404, body: "" }
        })
        // The test clock stands still: the offset is the server's time less ours, to the ms.
        const offset = yield* withApi(configFor(server, sample.version), (api) => api.syncClock)
        expect(offset).toBe(serverTime - now)
        expect(server.received.map((request) => `${request.method} ${request.path}`)).toEqual([`GET ${path}`])
      })
    )
  }

  for (const [name, contractTime] of Object.entries(timeCases)) {
    const contract = readSample(name)
    if (!contract.hosts.includes("contract")) continue
    const version = contract.version
    const spot = readSample(spotTimeOf[version])
    const spotTime = timeCases[spot.name] as number
    it.scoped(
      `${version}: on a futures host of its own, contract requests are timed by that host's clock (${contract.name})`,
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const spotHost = yield* loopbackExchange(
            answerBills({
              operation: "spotBills",
              version,
              page:
                version === "v3" ? "[]" : JSON.stringify({ code: "00000", msg: "success", requestTime: now, data: [] }),
              times: [],
              total: 0,
              now,
              time: { [timePath.spot[version]]: spot.body }
            })
          )
          const contractHost = yield* loopbackExchange(
            answerBills({
              operation: "contractBills",
              version,
              page: JSON.stringify({ hasNextPage: false, items: [] }),
              times: [],
              total: 0,
              now,
              time: { [timePath.contract[version]]: contract.body }
            })
          )
          yield* withApi({ baseUrl: spotHost.url, contractBaseUrl: contractHost.url, apiVersion: version }, (api) =>
            Effect.gen(function* () {
              yield* api.syncClock
              yield* api.spotBills({ after: now - day, before: now })
              yield* api.contractBills({ startTime: now - day, endTime: now })
            })
          )
          const stamp = (host: Loopback, path: string) =>
            host.received
              .filter((request) => request.path === path)
              .map((request) => request.headers["access-timestamp"])
          // The clock stands still, so each signed request carries its host's time to the ms.
          expect(stamp(spotHost, billsPath[version].spotBills)).toEqual([String(spotTime)])
          expect(stamp(contractHost, billsPath[version].contractBills)).toEqual([String(contractTime)])
        })
    )
  }
})

// ---------------------------------------------------------------------------------------------
// Failures.
// ---------------------------------------------------------------------------------------------

/** Each failure sample's code and the reason the client must give it, written from its source. */
const failureCases: Readonly<Record<string, { readonly code: string; readonly reason: string }>> = {
  "v2-failure-header-missing-ccxt-fork": { code: "40001", reason: "Authentication" },
  "v2-failure-signature-live": { code: "40009", reason: "Authentication" },
  // REQUEST_METHOD_NOT_SUPPORTED: the request itself is refused, as a parameter is (ccxt: BadRequest).
  "v3-failure-method-ccxt": { code: "-1150", reason: "InvalidParameter" },
  "v3-failure-system-ccxt": { code: "-1054", reason: "ServerError" },
  "v3-failure-parameter-limit-probe": { code: "-1142", reason: "InvalidParameter" },
  "v3-failure-parameter-symbol-probe": { code: "-1142", reason: "InvalidParameter" },
  "v3-failure-parameter-empty-probe": { code: "-1141", reason: "InvalidParameter" },
  // INVALID_SYMBOL: a contract filter the exchange does not know is a refused parameter.
  "v3-failure-symbol-docs": { code: "-1121", reason: "InvalidParameter" },
  "v3-failure-key-ccxt-early": { code: "-1044", reason: "Authentication" },
  "v3-failure-signature-ccxt-early": { code: "-1047", reason: "Authentication" },
  "v3-failure-permission-ccxt-early": { code: "-1052", reason: "Permission" },
  "v3-failure-unknown-ccxt-early": { code: "-1000", reason: "Unknown" },
  "v2-failure-contract-521-empty": { code: "", reason: "ServerError" }
}

/** The call a failure is met on: the host's bills operation. */
const operationOn = (host: "spot" | "contract"): BillsOperation => (host === "spot" ? "spotBills" : "contractBills")

describe("corpus: failures as the exchange prints them", () => {
  for (const [name, expected] of Object.entries(failureCases)) {
    const sample = readSample(name)
    for (const host of sample.hosts) {
      for (const status of sample.statuses) {
        const operation = operationOn(host)
        it.scoped(`${name}: HTTP ${status} on the ${host} host is ${expected.reason}`, () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(now)
            const server = yield* loopbackExchange((request) =>
              request.path === billsPath[sample.version][operation]
                ? { status, body: sample.body }
                : (answerTime(now)(request) ?? { status: 404, body: "" })
            )
            const error = yield* withApi(configFor(server, sample.version), (api) =>
              operation === "spotBills"
                ? Effect.asVoid(api.spotBills({ after: now - day, before: now }))
                : Effect.asVoid(api.contractBills({ startTime: now - day, endTime: now }))
            ).pipe(Effect.flip)
            // Compared field by field: a failing match would print the whole error, causes and all.
            const seen = error as unknown as Record<string, unknown>
            expect({
              _tag: seen._tag,
              operation: seen.operation,
              reason: seen.reason,
              code: seen.code,
              status: seen.status
            }).toEqual({ _tag: "BillsApiError", operation, reason: expected.reason, code: expected.code, status })
          })
        )
      }
    }
  }
})

describe("corpus: the samples directory", () => {
  it("every sample file is read by a test above, and each names its source", () => {
    const read = [...Object.keys(billsCases), ...Object.keys(timeCases), ...Object.keys(failureCases)].sort()
    expect(sampleNames()).toEqual(read)
    for (const name of sampleNames()) {
      const sample = readSample(name)
      expect(sample.header.source, `${name}: source`).toBeTruthy()
      // A file of a repository is named with the commit it was read at.
      if (sample.header.path !== undefined) expect(sample.header.commit, `${name}: commit`).toMatch(/^[0-9a-f]{40}$/)
    }
  })
})
