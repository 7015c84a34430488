/**
 * The fake exchange's bills and its answers to the two queries: the books of both accounts,
 * seeded from the options, and the page each well-formed request gets.
 */
import * as Either from "effect/Either"
import { successCode } from "../../internal/protocol.js"
import type { OperationName } from "../../Operation.js"
import * as BillBook from "../BillBook.js"
import type * as BillGenerator from "../BillGenerator.js"
import type { FakeBehaviour, FakeExchangeOptions } from "../FakeExchange.js"
import { envelope, type Rejection, rejections } from "../FakeProtocol.js"
import * as LazyBillBook from "../LazyBillBook.js"
import * as RequestParams from "../RequestParams.js"
import type { Account, WireBillOf } from "../WireBill.js"

/**
 * An answer before it becomes a response: status, envelope code and body text.
 */
export interface Answer {
  readonly status: number
  readonly code: string
  readonly body: string
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
 * The bills of both accounts.
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
export const seedBooks = (options: FakeExchangeOptions, generator: BillGenerator.BillGenerator): Books => {
  const gen = options.generate
  const startMillis = gen?.startMillis ?? defaultStartMillis
  const endMillis = gen?.endMillis ?? startMillis + ninetyDays
  const linked =
    gen?.linked === true && gen.lazy !== true
      ? generator.generateLinked({
          count: (gen.funding ?? 100) + (gen.spot ?? 100),
          startMillis,
          endMillis,
          tieEvery: gen.sameMillisecondGroup?.every
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
  return { funding: seeded("funding", options.bills?.funding), spot: seeded("spot", options.bills?.spot) }
}

/**
 * The answer to an authenticated request's body: a page of the books in the behaviour's order
 * and bounds, or the rejection its parameters earn. `behaviour` is read at each request.
 */
export const makeQueries =
  (books: Books, behaviour: () => FakeBehaviour) =>
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
