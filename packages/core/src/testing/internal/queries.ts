/**
 * The fake exchange's bills and its answers to the three queries: the books of the three
 * accounts, seeded from the options, and the page each well-formed request gets.
 */
import * as Either from "effect/Either"
import type { ApiVersion } from "../../BillsConfig.js"
import { successCode } from "../../internal/protocol.js"
import type { OperationName } from "../../Operation.js"
import * as BillBook from "../BillBook.js"
import * as BillGenerator from "../BillGenerator.js"
import type { ContractWireOptions, FakeBehaviour, FakeExchangeOptions } from "../FakeExchange.js"
import { envelope, type Rejection, rejections } from "../FakeProtocol.js"
import * as LazyBillBook from "../LazyBillBook.js"
import * as RequestParams from "../RequestParams.js"
import type { Account, ContractWireBill, WireBillOf } from "../WireBill.js"

/**
 * An answer before it becomes a response: status, envelope code and body text.
 */
export interface Answer {
  readonly status: number
  readonly code: string
  readonly body: string
  /**
   * The body is already in the served version's form: a contract page, whose ids above 2^53 are
   * written as bare numbers that a parse and render would round.
   */
  readonly rendered?: boolean | undefined
}

/**
 * The answer to a rejected request, with the rejection's message and an optional detail.
 */
export const rejectionAnswer = (rejection: Rejection, now: number, detail?: string): Answer => ({
  status: rejection.status,
  code: rejection.code,
  body: envelope(rejection.code, detail === undefined ? rejection.msg : `${rejection.msg}: ${detail}`, now, null)
})

const successAnswer = (data: unknown, now: number): Answer => ({
  status: 200,
  code: successCode,
  body: envelope(successCode, "success", now, data)
})

/**
 * The bills of the funding and spot accounts.
 */
export type Books = { readonly [A in Account]: BillBook.BillBook<WireBillOf[A]> }

/** Where generated bills start, and how long they span, unless told otherwise. */
export const defaultStartMillis = Date.UTC(2025, 0, 1)
export const ninetyDays = 90 * 24 * 60 * 60 * 1000

/**
 * The books the options describe: generated bills (eagerly, or lazily for millions) plus the
 * bills given. The generator observes every bill, so bills appended later continue each
 * coin's balance chain and the ids.
 */
export const seedBooks = (
  options: FakeExchangeOptions,
  generator: BillGenerator.BillGenerator
): Books & {
  /** The ids of linked transfers' legs: each already has its other leg in funding or spot. */
  readonly pairedTransfers: ReadonlySet<string>
} => {
  const gen = options.generate
  const startMillis = gen?.startMillis ?? defaultStartMillis
  const endMillis = gen?.endMillis ?? startMillis + ninetyDays
  const linked =
    gen?.linked === true && gen.lazy !== true
      ? generator.generateLinked({
          count: (gen.funding ?? 100) + (gen.spot ?? 100),
          startMillis,
          endMillis,
          tieEvery: gen.sameMillisecondGroup?.every,
          ...gen.linkedCases
        })
      : undefined
  const seeded = <A extends Account>(
    account: A,
    given: ReadonlyArray<WireBillOf[A]> | undefined
  ): BillBook.BillBook<WireBillOf[A]> => {
    if (gen?.lazy === true) {
      const lazy = LazyBillBook.make(account, {
        count: gen[account] ?? 100,
        startMillis,
        endMillis,
        seed: gen.seed,
        coins: gen.coins,
        bizTypes: gen.bizTypes?.[account],
        firstBillId: gen.firstBillId
      })
      // Appended bills continue the lazy balances and ids.
      for (const bill of lazy.lastOfEachCoin()) generator.observe(account, bill)
      if (given !== undefined && given.length > 0) {
        lazy.insert(given)
        for (const bill of given) generator.observe(account, bill)
      }
      return lazy
    }
    const generated =
      linked !== undefined
        ? (linked[account] as Array<WireBillOf[A]>)
        : gen === undefined
          ? []
          : generator.generate(account, {
              count: gen[account] ?? 100,
              startMillis,
              endMillis,
              sameMillisecondGroup: gen.sameMillisecondGroup
            })
    const book = BillBook.make<WireBillOf[A]>(generated)
    if (given !== undefined && given.length > 0) {
      book.insert(given)
      for (const bill of book.all()) generator.observe(account, bill)
    }
    return book
  }
  return {
    funding: seeded("funding", options.bills?.funding),
    spot: seeded("spot", options.bills?.spot),
    pairedTransfers: new Set(linked?.transfers.flat() ?? [])
  }
}

/**
 * The futures account's book: generated bills consistent with `books` (their transfers matched,
 * see `BillGenerator.generateContract`) when `generate.contract` is set, plus the bills given.
 */
export const seedContract = (
  options: FakeExchangeOptions,
  books: Books,
  pairedTransfers: ReadonlySet<string> = new Set()
): BillBook.BillBook<ContractWireBill> => {
  const gen = options.generate
  const startMillis = gen?.startMillis ?? defaultStartMillis
  const endMillis = gen?.endMillis ?? startMillis + ninetyDays
  const generatedContract =
    gen?.contract === undefined
      ? []
      : BillGenerator.generateContract({
          count: gen.contract,
          startMillis,
          endMillis,
          seed: gen.seed,
          coins: gen.coins,
          sameMillisecondGroup: gen.sameMillisecondGroup,
          // A linked transfer between funding and spot already has both legs: a futures leg
          // for it too would book the same coins twice.
          transfers: [...books.funding.all(), ...books.spot.all()].filter((bill) => !pairedTransfers.has(bill.billId))
        })
  const contract = BillBook.make<ContractWireBill>(generatedContract)
  if (options.bills?.contract !== undefined) contract.insert(options.bills.contract)
  return contract
}

/** Which contract ids the fake writes as bare JSON numbers. */
export type NumericIds = "some" | "all" | "none"

/** A JSON value, or a bare number for a digit string the fake sends as one. */
const literal = (value: string | null, bare: boolean): string =>
  bare && value !== null && /^\d+$/.test(value) ? value : JSON.stringify(value)

/**
 * A contract record's text in `version`'s names. Both versions write the time as a number, as
 * the docs' samples do (v3 `time`, v2 `ctime`; `timesAsText` writes v2's as a digit string);
 * ids go as numbers by `numericIds` ("some": those ending in an even digit), since the docs and
 * other public samples disagree.
 */
export const contractRecord = (
  bill: ContractWireBill,
  version: ApiVersion,
  numericIds: NumericIds,
  timesAsText = false
): string => {
  const bareId = numericIds === "all" || (numericIds === "some" && Number(bill.billId.at(-1)) % 2 === 0)
  const id = literal(bill.billId, bareId)
  return version === "v3"
    ? `{"billId":${id},"asset":${JSON.stringify(bill.coinName)},"symbol":${JSON.stringify(bill.symbol)},"income":${JSON.stringify(bill.deltaAmount)},"incomeType":${JSON.stringify(bill.bizType)},"balance":${JSON.stringify(bill.afterAmount)},"fillFee":${JSON.stringify(bill.fees)},"time":${bill.cTime},"transferReason":${JSON.stringify(bill.transferReason)}}`
    : `{"billId":${id},"coin":${JSON.stringify(bill.coinName)},"symbol":${JSON.stringify(bill.symbol)},"amount":${JSON.stringify(bill.deltaAmount)},"businessType":${JSON.stringify(bill.bizType)},"balance":${JSON.stringify(bill.afterAmount)},"fillFee":${JSON.stringify(bill.fees)},"transferReason":${JSON.stringify(bill.transferReason)},"ctime":${literal(bill.cTime, !timesAsText)}}`
}

/**
 * The contract page of a request: the first `limit` matching bills of the window in the
 * behaviour's order, after the v3 cursor's bill when it names one, and whether more follow.
 */
const contractPage = (
  book: BillBook.BillBook<ContractWireBill>,
  p: RequestParams.ContractParams,
  behaviour: FakeBehaviour
): { readonly items: ReadonlyArray<ContractWireBill>; readonly hasNextPage: boolean } => {
  const { bounds, order } = behaviour
  const exclusive = bounds === "exclusive"
  let lo = p.start === undefined ? undefined : exclusive ? p.start + 1 : p.start
  let hi = p.end === undefined ? undefined : exclusive ? p.end - 1 : p.end
  const key = p.nextKey
  if (key !== undefined) {
    if (order === "newest-first") hi = hi === undefined ? key.time : Math.min(hi, key.time)
    else lo = lo === undefined ? key.time : Math.max(lo, key.time)
  }
  const query = {
    coinName: p.asset,
    symbol: p.symbol,
    bizType: p.incomeType,
    start: lo,
    end: hi,
    bounds: "inclusive" as const
  }
  if (key === undefined) {
    const { items } = book.slice(query, order, 0, p.limit + 1)
    return { items: items.slice(0, p.limit), hasNextPage: items.length > p.limit }
  }
  const { items } = book.slice(query, order, 0, Number.MAX_SAFE_INTEGER)
  const at = items.findIndex((bill) => bill.billId === key.id)
  // A key the window does not hold continues nowhere: nothing after it.
  const rest = at === -1 ? [] : items.slice(at + 1)
  return { items: rest.slice(0, p.limit), hasNextPage: rest.length > p.limit }
}

/**
 * The answer to an authenticated request's body: a page of the books in the behaviour's order
 * and bounds, or the rejection its parameters earn. `behaviour` is read at each request.
 */
export const makeQueries =
  (
    books: Books,
    contract: BillBook.BillBook<ContractWireBill>,
    behaviour: () => FakeBehaviour,
    version: ApiVersion,
    numericIds: () => NumericIds,
    contractWire: ContractWireOptions
  ) =>
  (operation: OperationName, body: string, now: number): Answer => {
    const { bounds, order, lookbackMillis, maxWindowMillis } = behaviour()
    /** The history rule (horizon, then width) a window breaks, if any. */
    const historyRule = (start: number | undefined, end: number | undefined): Answer | undefined => {
      if (start !== undefined && lookbackMillis !== undefined && start < now - lookbackMillis) {
        return rejectionAnswer(rejections.tooOld, now)
      }
      if (maxWindowMillis !== undefined && (start === undefined || (end ?? now) - start > maxWindowMillis)) {
        return rejectionAnswer(rejections.tooWide, now, `${maxWindowMillis / 86_400_000} days`)
      }
      return undefined
    }
    if (operation === "contractBills") {
      return Either.match(RequestParams.contractParams(body, version), {
        onLeft: ({ detail, rejection }) => rejectionAnswer(rejection, now, detail),
        onRight: (p) => {
          const refused = historyRule(p.start, p.end)
          if (refused !== undefined) return refused
          // A page cut short says so only where the answer carries `hasNextPage` (not v2's
          // envelope, not a v3 answer without it).
          const withFlag = contractWire.hasNextPage !== "missing"
          const saysMore = withFlag && (version === "v3" || contractWire.envelope !== true)
          const limit = saysMore ? Math.min(p.limit, contractWire.pageSize ?? p.limit) : p.limit
          const { hasNextPage, items } = contractPage(contract, { ...p, limit }, behaviour())
          const records = items
            .map((bill) => contractRecord(bill, version, numericIds(), contractWire.timesAsText === true))
            .join(",")
          const last = items.at(-1)
          const keyForm = contractWire.nextKey ?? "object"
          const nextKey =
            !hasNextPage || last === undefined || keyForm === "missing"
              ? ""
              : keyForm === "null"
                ? `,"nextKey":null`
                : `,"nextKey":{"nextKeyId":${last.billId},"nextKeyTime":${last.cTime}}`
          // v2 as its docs' sample shows it: bare, `{"hasNextPage": true, "items": [...]}`, no
          // code, msg or stamp, and no cursor (the v2 request takes none).
          const body =
            version === "v3"
              ? `{${withFlag ? `"hasNextPage":${hasNextPage},` : ""}"items":[${records}]${nextKey}}`
              : contractWire.envelope === true
                ? `{"code":"${successCode}","msg":"success","requestTime":${now},"data":[${records}]}`
                : `{"hasNextPage":${hasNextPage},"items":[${records}]}`
          return { status: 200, code: successCode, rendered: true, body }
        }
      })
    }
    if (operation === "fundingBills") {
      return Either.match(RequestParams.fundingParams(body), {
        onLeft: ({ detail, rejection }) => rejectionAnswer(rejection, now, detail),
        onRight: (p) => {
          const refused = historyRule(p.start, p.end)
          if (refused !== undefined) return refused
          const offset = (p.pageIndex - 1) * p.pageSize
          const { items, total } = books.funding.slice({ ...p, bounds }, order, offset, p.pageSize)
          const hasNextPage = offset + p.pageSize < total
          return successAnswer({ total, page: p.pageIndex, pageSize: p.pageSize, hasNextPage, items }, now)
        }
      })
    }
    return Either.match(RequestParams.spotParams(body), {
      onLeft: ({ detail, rejection }) => rejectionAnswer(rejection, now, detail),
      onRight: (p) => {
        const refused = historyRule(p.start, p.end)
        if (refused !== undefined) return refused
        return successAnswer(books.spot.slice({ ...p, bounds }, order, 0, p.limit).items, now)
      }
    })
  }
