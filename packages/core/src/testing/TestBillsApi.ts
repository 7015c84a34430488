/**
 * A `BillsApi` for users' own tests: the real client over an in-memory fake exchange holding
 * the bills they give, with no rate limit and no network. Works under `TestClock`: the streams
 * end at "now" read from the Clock, so a clock that still reads the epoch (one the test did not
 * set) is set just after the last bill; a test that sets it before every bill fails with a
 * message saying so, rather than get no bill. A wait on a
 * `TestClock` the test does not move (a rate limit, a latency, a request timeout, the pause
 * before a retry, the measurement of the exchange's clock) fails the same way, after 2 s of
 * real time, rather than hang.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type { ContractBill, FundingBill, SpotBill } from "../Bill.js"
import { BillsApi } from "../BillsApi.js"
import { type ApiVersion, BillsConfig, type BillsConfigInput } from "../BillsConfig.js"
import { BillsRateLimiter, type RateLimitOptions } from "../BillsRateLimiter.js"
import { ClockWaits } from "../internal/clockWaits.js"
import { Signer } from "../Signer.js"
import { formatFixed } from "./BillGenerator.js"
import { defaultCredentials, FakeExchange, type FakeExchangeOptions } from "./FakeExchange.js"
import * as FakeHttpClient from "./FakeHttpClient.js"
import * as ClockBeforeBills from "./internal/clockBeforeBills.js"
import * as StillClock from "./internal/stillClock.js"
import type * as SlidingWindow from "./SlidingWindow.js"
import type { ContractWireBill, FundingWireBill, SpotWireBill } from "./WireBill.js"

/**
 * Canned bills, as wire records or as bills a client returned, and how the fake behaves.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsApiTestOptions extends Omit<FakeExchangeOptions, "bills" | "credentials" | "rateLimit"> {
  readonly funding?: ReadonlyArray<FundingWireBill | FundingBill>
  readonly spot?: ReadonlyArray<SpotWireBill | SpotBill>
  /** The futures account's bills. Since 0.2.0. */
  readonly contract?: ReadonlyArray<ContractWireBill | ContractBill>
}

/** A contract bill as the fake keeps it: a decoded bill's fields in the kit's names. */
const contractWire = (bill: ContractWireBill | ContractBill): ContractWireBill =>
  "raw" in bill
    ? {
        billId: bill.billId,
        coinName: bill.coinName,
        symbol: bill.symbol._tag === "Some" ? bill.symbol.value : null,
        bizType: bill.bizType,
        deltaAmount: formatFixed(bill.deltaAmount, bill.deltaAmount.scale),
        afterAmount: formatFixed(bill.afterAmount, bill.afterAmount.scale),
        fees: formatFixed(bill.fees, bill.fees.scale),
        cTime: String(DateTime.toEpochMillis(bill.cTime)),
        transferReason: bill.transferReason._tag === "Some" ? bill.transferReason.value : null
      }
    : bill

// A decoded bill keeps the record it was decoded from, which has every wire field.
const toWire = <W>(bill: W | FundingBill | SpotBill): W =>
  typeof bill === "object" && bill !== null && "raw" in bill ? (bill.raw as W) : (bill as W)

const credentials = {
  apiKey: Redacted.make(defaultCredentials.apiKey),
  secret: Redacted.make(defaultCredentials.secret),
  passphrase: Redacted.make(defaultCredentials.passphrase)
}

/**
 * How to assemble the real client over a fake exchange.
 *
 * @since 0.1.0
 * @category models
 */
export interface StackOptions {
  /**
   * The interface version both sides speak (default `"v2"`): the fake serves it and the client
   * is configured for it. Overrides `exchange.apiVersion` and `config.apiVersion`.
   */
  readonly apiVersion?: ApiVersion | undefined
  /** The fake exchange; its `rateLimit` is read only when `rateLimit` below is not given. */
  readonly exchange?: FakeExchangeOptions
  /** Client settings on top of a base URL that never leaves the process. */
  readonly config?: BillsConfigInput
  /**
   * The rate limit of both sides, from one setting, so that they agree: the fake exchange's
   * strict window of `limit` per `window` and the client's limiter with the same (and its
   * margin). `false` for none on either side. Default: the fake's `exchange.rateLimit` when
   * given, else `false`. With a limit, a test under `TestClock` must move the clock (a walk of
   * more than 10 pages waits a window); see "Testing your code" in the docs.
   */
  readonly rateLimit?: RateLimitOptions | false | undefined
}

/** The one setting both sides read, from `rateLimit` or, without it, the fake's own. */
const rateLimitOf = (options: StackOptions): RateLimitOptions | false => {
  if (options.rateLimit !== undefined) return options.rateLimit
  const fake = options.exchange?.rateLimit
  return fake === undefined || fake === false
    ? false
    : { limit: fake.limit, window: Duration.millis(fake.windowMillis) }
}

/** The fake exchange's window for the client's limit: as many per window, counted the same way. */
const windowOf = (rateLimit: RateLimitOptions | false): SlidingWindow.RateLimit =>
  rateLimit === false
    ? false
    : {
        limit: Math.max(1, Math.floor(rateLimit.limit ?? 10)),
        windowMillis: Duration.toMillis(rateLimit.window ?? Duration.seconds(1))
      }

/** A guard's message, as this layer says it. */
const stillMessage = (subject: string, waitsFor: string, orElse: string): string =>
  StillClock.stillMessage("TestBillsApi", subject, waitsFor, orElse)

/** Waiting for a permit: only the kit's rate limit makes a request wait for one. */
const permitMessage = (rateLimit: RateLimitOptions | false): string => {
  const window = windowOf(rateLimit)
  return stillMessage(
    "a request",
    window === false
      ? "a permit of the client's limiter"
      : `the kit's rate limit (${window.limit} requests per ${window.windowMillis} ms)`,
    "build the kit with rateLimit: false"
  )
}

/** Holding a permit: the request is on its way, for the fake's latency or until the client's timeout. */
const requestMessage = stillMessage(
  "a request",
  "the fake exchange's latency, or for the client's requestTimeout to end an answer that never comes (a Hang fault)",
  "build the kit with no latency and no Hang fault"
)

/**
 * The retry loop's pauses and the clock measurement, which wait outside the limiter: after a
 * transient failure (a 429 or 5xx, a reset, an answer that never came, each of which the fake's
 * fault options inject) the client pauses on the clock before it tries again.
 */
const clockWaitsLayer: Layer.Layer<ClockWaits> = Layer.succeed(ClockWaits, {
  around: (wait) =>
    StillClock.failWhenStill(
      Effect.sync(() =>
        wait._tag === "RetryPause"
          ? stillMessage(
              "a call",
              `${Duration.format(wait.delay)} before its retry ${wait.retry}, after a transient failure (${wait.error.message})`,
              "build the kit without that fault, or with layerStack's config: { maxAttempts: 1 }, which ends a call at its first failure"
            )
          : stillMessage(
              "the measurement of the exchange's clock",
              "the fake exchange's latency",
              "build the kit with no latency"
            )
      )
    )
})

/**
 * The client's limiter, every request of which ends with a message rather than hang when it
 * waits on a clock the test does not move.
 */
const limiterLayer = (rateLimit: RateLimitOptions | false): Layer.Layer<BillsRateLimiter> =>
  Layer.effect(
    BillsRateLimiter,
    Effect.map(
      rateLimit === false
        ? Effect.provide(BillsRateLimiter, BillsRateLimiter.layerUnlimited)
        : BillsRateLimiter.make(rateLimit),
      (limiter) => {
        const waiting = permitMessage(rateLimit)
        return BillsRateLimiter.of({
          // One guard over the permit and the request, whose message says which of the two it met.
          withPermit: (operation, observe) => (request) =>
            Effect.flatMap(Ref.make(waiting), (stage) =>
              StillClock.failWhenStill(Ref.get(stage))(
                limiter.withPermit(operation, observe)(Effect.zipRight(Ref.set(stage, requestMessage), request))
              )
            ),
          take: (operation) => StillClock.failWhenStill(Effect.succeed(waiting))(limiter.take(operation))
        })
      }
    )
  )

/** An in-memory `HttpClient` answered by the fake exchange in context, refusing windows that end before every bill. */
const httpClientLayer = (options: FakeExchangeOptions): Layer.Layer<HttpClient.HttpClient, never, FakeExchange> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(FakeExchange, (exchange) => {
      const check = ClockBeforeBills.make(options)
      return FakeHttpClient.make(
        (request) =>
          Effect.zipRight(
            Effect.flatMap(exchange.serverTime, (now) => check(request, now)),
            exchange.handle(request)
          ),
        options.latency
      )
    })
  )

/**
 * The whole real client stack (signer, limiter, retries, decoding) over a fake exchange built
 * from `options.exchange`; the `FakeExchange` handle is provided too. The client's limiter and
 * the fake's limit come from one setting, `rateLimit` (none by default).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStack = (options: StackOptions = {}): Layer.Layer<BillsApi | FakeExchange> => {
  const rateLimit = rateLimitOf(options)
  const version = options.apiVersion === undefined ? {} : { apiVersion: options.apiVersion }
  const exchange: FakeExchangeOptions = { ...options.exchange, ...version, rateLimit: windowOf(rateLimit) }
  return BillsApi.layer.pipe(
    Layer.provide(Layer.effectDiscard(ClockBeforeBills.startAfterBills(exchange))),
    Layer.provide(httpClientLayer(exchange)),
    Layer.provideMerge(FakeExchange.layerExchange(exchange)),
    Layer.provide(Signer.layer(credentials)),
    Layer.provide(limiterLayer(rateLimit)),
    Layer.provide(clockWaitsLayer),
    Layer.provide(
      Layer.orDie(BillsConfig.layer({ baseUrl: "https://fake-exchange.test", ...options.config, ...version }))
    )
  )
}

/**
 * `BillsApi` over canned bills, with no rate limit on either side; the `FakeExchange` handle
 * is provided too, for assertions on the requests your code made.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: BillsApiTestOptions = {}): Layer.Layer<BillsApi | FakeExchange> => {
  const { contract = [], funding = [], spot = [], ...behaviour } = options
  return layerStack({
    apiVersion: behaviour.apiVersion,
    exchange: {
      ...behaviour,
      bills: {
        funding: funding.map(toWire<FundingWireBill>),
        spot: spot.map(toWire<SpotWireBill>),
        contract: contract.map(contractWire)
      }
    },
    rateLimit: false
  })
}
