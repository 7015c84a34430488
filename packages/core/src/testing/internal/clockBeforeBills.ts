/**
 * What keeps a user's test from getting no bill because its clock reads 1970. Under `it.effect`
 * the clock starts at the epoch, and a stream ends at the clock's now: a test that forgets
 * `TestClock.setTime` would walk a window that ends before every bill, and get none, silently.
 * So the kit starts a clock that reads the epoch just after the last bill it holds; should the
 * test set it before every bill anyway, the kit's exchange refuses a stream's first request with
 * a message that says what to do.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as TestClock from "effect/TestClock"
import type { FakeExchangeOptions } from "../FakeExchange.js"
import type { FakeRequest } from "../FakeProtocol.js"
import type { Account } from "../WireBill.js"
import { defaultStartMillis, ninetyDays } from "./queries.js"

/** The earliest and latest bill time an account starts with, from the options (no book is read). */
const spanOf = (options: FakeExchangeOptions, account: Account): { first: number; last: number } | undefined => {
  const times = (options.bills?.[account] ?? []).map((bill) => Number(bill.cTime))
  const generate = options.generate
  if (generate !== undefined && (generate[account] ?? 100) > 0) {
    const start = generate.startMillis ?? defaultStartMillis
    times.push(start, generate.endMillis ?? start + ninetyDays)
  }
  return times.length === 0 ? undefined : { first: Math.min(...times), last: Math.max(...times) }
}

/**
 * Sets a clock that still reads the epoch (a `TestClock` nobody set) to just after the last bill
 * the exchange starts with; any other clock stays as it is.
 */
export const startAfterBills = (options: FakeExchangeOptions): Effect.Effect<void> =>
  Effect.gen(function* () {
    if ((yield* Clock.currentTimeMillis) !== 0) return
    const spans = [spanOf(options, "funding"), spanOf(options, "spot")].flatMap((span) =>
      span === undefined ? [] : [span]
    )
    const contract = (options.bills?.contract ?? []).map((bill) => Number(bill.cTime))
    if (spans.length === 0 && contract.length === 0) return
    yield* TestClock.setTime(Math.max(...spans.map((span) => span.last), ...contract) + 1)
  })

/** The end of the window a request asks for: funding's `endTime`, spot's `before` (v2 and v3 alike). */
const windowEnd = (request: FakeRequest): { account: Account; end: number } | undefined => {
  // The futures interface (`/capi/...`) is not checked here.
  if (request.path.startsWith("/capi/")) return undefined
  const account = request.path.endsWith("/fundingBills")
    ? "funding"
    : request.path.endsWith("/account/bills")
      ? "spot"
      : undefined
  if (account === undefined) return undefined
  const body = Either.getOrUndefined(Either.try(() => JSON.parse(request.body) as unknown))
  if (typeof body !== "object" || body === null) return undefined
  const end = (body as Record<string, unknown>)[account === "funding" ? "endTime" : "before"]
  return end === undefined || end === null || Number.isNaN(Number(end)) ? undefined : { account, end: Number(end) }
}

const iso = (millis: number): string => new Date(millis).toISOString()

/**
 * A check of each request against the clock: dies when a window ends at the clock (as a stream's
 * does) and the clock reads before every bill of the account. Checks until the first window that
 * ends at the clock, which tells whether the test set it.
 */
export const make = (options: FakeExchangeOptions) => {
  const spans = { funding: spanOf(options, "funding"), spot: spanOf(options, "spot") }
  let settled = false
  return (request: FakeRequest, now: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (settled) return Effect.void
      const asked = windowEnd(request)
      if (asked === undefined || asked.end < now) return Effect.void
      settled = true
      const span = spans[asked.account]
      if (span === undefined || now >= span.first) return Effect.void
      return Effect.dieMessage(
        `TestBillsApi: the clock reads ${iso(now)}, before the first ${asked.account} bill of the fake exchange ` +
          `(${iso(span.first)}). A stream ends at the clock's now, so it would find no bill; under it.effect the clock ` +
          `starts at 1970-01-01. Set it after your bills first: yield* TestClock.setTime(${span.last + 1}) ` +
          `(${iso(span.last + 1)}).`
      )
    })
}
