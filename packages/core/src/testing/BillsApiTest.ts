/**
 * A `BillsApi` for users' own tests: the real client over an in-memory fake exchange holding
 * the bills they give, with no rate limit and no network. Works under `TestClock`; the
 * streams end at "now" read from the Clock, so set the TestClock after your canned bills.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { FundingBill, SpotBill } from "../Bill.js"
import { BillsApi } from "../BillsApi.js"
import { type ApiVersion, BillsConfig, type BillsConfigInput } from "../BillsConfig.js"
import { BillsRateLimiter, type RateLimitOptions } from "../BillsRateLimiter.js"
import { Signer } from "../Signer.js"
import { defaultCredentials, FakeExchange, type FakeExchangeOptions } from "./FakeExchange.js"
import type { FundingWireBill, SpotWireBill } from "./WireBill.js"

/**
 * Canned bills, as wire records or as bills a client returned, and how the fake behaves.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillsApiTestOptions extends Omit<FakeExchangeOptions, "bills" | "credentials" | "rateLimit"> {
  readonly funding?: ReadonlyArray<FundingWireBill | FundingBill>
  readonly spot?: ReadonlyArray<SpotWireBill | SpotBill>
}

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
  readonly exchange?: FakeExchangeOptions
  /** Client settings on top of a base URL that never leaves the process. */
  readonly config?: BillsConfigInput
  /** The client's limiter; `false` (the default) for none. */
  readonly rateLimit?: RateLimitOptions | false
}

/**
 * The whole real client stack (signer, limiter, retries, decoding) over a fake exchange built
 * from `options.exchange`; the `FakeExchange` handle is provided too.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStack = (options: StackOptions = {}): Layer.Layer<BillsApi | FakeExchange> => {
  const version = options.apiVersion === undefined ? {} : { apiVersion: options.apiVersion }
  return BillsApi.layer.pipe(
    Layer.provideMerge(FakeExchange.layer({ ...options.exchange, ...version })),
    Layer.provide(Signer.layer(credentials)),
    Layer.provide(
      options.rateLimit === undefined || options.rateLimit === false
        ? BillsRateLimiter.layerUnlimited
        : BillsRateLimiter.layer(options.rateLimit)
    ),
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
  const { funding = [], spot = [], ...behaviour } = options
  return layerStack({
    apiVersion: behaviour.apiVersion,
    exchange: {
      ...behaviour,
      rateLimit: false,
      bills: { funding: funding.map(toWire<FundingWireBill>), spot: spot.map(toWire<SpotWireBill>) }
    }
  })
}
