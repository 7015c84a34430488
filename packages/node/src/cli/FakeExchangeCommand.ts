/**
 * `fake-exchange`: runs the fake exchange on loopback with generated bills until Ctrl-C, so the
 * client, the command line or any other tool can be tried with no account and no network. The
 * bills are a trader's (the testing kit's `TraderAccount`: deposits, two-leg trades, transfers
 * between the three accounts, futures fees, funding and profit or loss) over a year unless
 * `--random` or `--linked` asks for the random generator's, over 90 days. The
 * same command is `npx bills fake-exchange` where the package is installed and
 * `pnpm fake-exchange` in this repository; each prints the commands to try in its own words.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Flags from "./Flags.js"
import { UsageError } from "./UsageError.js"

const day = 24 * 60 * 60 * 1000
/** Futures bills of a trader's account unless `--contract` says otherwise: as busy as the other two. */
const traderContract = (funding: number, spot: number) => Math.round((funding + spot) / 2)

const count = (flag: string, fallback: number, description: string) =>
  Options.text(flag).pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber(flag, 0)),
    Options.withDescription(`${description} (default: ${fallback})`),
    Options.withDefault(fallback)
  )

const options = {
  seed: count("seed", 1, "generator seed"),
  funding: count("funding", 1000, "funding bills"),
  spot: count("spot", 1000, "spot bills"),
  contract: Options.text("contract").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("contract", 0)),
    Options.withDescription(
      "futures bills (default: half of --funding plus --spot; with --random none, and then the futures account's own besides its transfers)"
    ),
    Options.optional
  ),
  days: Options.text("days").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("days", 1)),
    Options.withDescription("the bills span this many days up to now (default: 365; with --random or --linked, 90)"),
    Options.optional
  ),
  random: Options.boolean("random").pipe(
    Options.withDescription("random bills of every type instead of a trader's account (the generator before 0.3.0)")
  ),
  sameMsEvery: Options.text("same-ms-every").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("same-ms-every", 1)),
    Options.withDescription("with --random or --linked: every N bills, start a group sharing one millisecond"),
    Options.optional
  ),
  sameMsSize: count("same-ms-size", 2, "size of such a group"),
  linked: Options.boolean("linked").pipe(
    Options.withDescription(
      "random bills, with trades as two spot legs and transfers between funding and spot with both legs (--funding plus --spot bills in all)"
    )
  ),
  order: Options.text("order").pipe(
    Options.withPseudoName("newest-first|oldest-first"),
    Options.withSchema(Flags.oneOf("order", ["newest-first", "oldest-first"] as const)),
    Options.withDescription("the order the exchange lists spot bills in (default: newest-first)"),
    Options.withDefault("newest-first" as const)
  ),
  bounds: Options.text("bounds").pipe(
    Options.withPseudoName("inclusive|exclusive"),
    Options.withSchema(Flags.oneOf("bounds", ["inclusive", "exclusive"] as const)),
    Options.withDescription("whether after/before include their millisecond (default: inclusive)"),
    Options.withDefault("inclusive" as const)
  ),
  lookbackDays: Options.text("lookback-days").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("lookback-days", 1)),
    Options.withDescription("serve only the last N days: an older start is refused as the exchange's horizon is"),
    Options.optional
  ),
  maxWindowDays: Options.text("max-window-days").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("max-window-days", 1)),
    Options.withDescription("refuse a window wider than N days, with the code the horizon shares"),
    Options.optional
  ),
  accounts: Options.text("accounts").pipe(
    Options.withPseudoName("N"),
    Options.withSchema(Flags.wholeNumber("accounts", 1)),
    Options.withDescription(
      "serve N accounts at the one address, each its own key, bills (seeds from --seed up) and rate limit (default: 1)"
    ),
    Options.withDefault(1)
  ),
  rateLimit: count("rate-limit", 10, "requests per second per operation and account; 0 disables the limit"),
  faultRate: Options.float("fault-rate").pipe(
    Options.withPseudoName("SHARE"),
    Options.withDescription("share of requests (0..1) answered with a random fault (default: 0)"),
    Options.withDefault(0)
  ),
  latency: count("latency", 0, "round trip in ms: half before the request is counted, half after"),
  jitter: count("jitter", 0, "up to this many ms more per round trip, drawn per request"),
  apiVersion: Options.text("api-version").pipe(
    Options.withPseudoName("v2|v3"),
    Options.withSchema(Flags.oneOf("api-version", ["v2", "v3"] as const)),
    Options.withFallbackConfig(Config.literal("v2", "v3")("WEEX_API_VERSION").pipe(Config.withDefault("v2" as const))),
    Options.withDescription("the interface served: v2 or v3 (default: WEEX_API_VERSION, else v2)")
  ),
  port: count("port", 0, "the port; 0 picks a free one"),
  host: Options.text("host").pipe(
    Options.withPseudoName("ADDRESS"),
    Options.withDescription("a loopback address (default: 127.0.0.1)"),
    Options.withDefault("127.0.0.1")
  ),
  apiKey: Options.text("api-key").pipe(
    Options.withPseudoName("KEY"),
    Options.withDescription("the key it accepts (default: the testing kit's)"),
    Options.optional
  ),
  secret: Options.text("secret").pipe(
    Options.withPseudoName("SECRET"),
    Options.withDescription("the secret it accepts (default: the testing kit's)"),
    Options.optional
  ),
  passphrase: Options.text("passphrase").pipe(
    Options.withPseudoName("PASSPHRASE"),
    Options.withDescription("the passphrase it accepts (default: the testing kit's)"),
    Options.optional
  )
}

/**
 * The `fake-exchange` command; `runner` is how the user runs `bills` where they are (`npx bills`
 * once installed, `pnpm bills` in this repository), for the commands it prints.
 *
 * @since 0.1.0
 * @category commands
 */
export const fakeExchangeCommand = (runner: string) =>
  Command.make("fake-exchange", options, (flags) =>
    Effect.gen(function* () {
      // Loaded only when it runs: `bills --help` needs neither the server nor the testing kit.
      const { FakeExchange, TraderAccount } = yield* Effect.promise(() => import("@account-bills/core/testing"))
      const { FakeExchangeServer } = yield* Effect.promise(() => import("../FakeExchangeServer.js"))
      const defaults = FakeExchange.defaultCredentials
      const base = {
        apiKey: Option.getOrElse(flags.apiKey, () => defaults.apiKey),
        secret: Option.getOrElse(flags.secret, () => defaults.secret),
        passphrase: Option.getOrElse(flags.passphrase, () => defaults.passphrase)
      }
      // Account 1 keeps the given (or the kit's) credentials, so one account is served as before.
      const credentialsOf = (account: number) =>
        account === 1
          ? base
          : {
              apiKey: `${base.apiKey}-${account}`,
              secret: `${base.secret}-${account}`,
              passphrase: `${base.passphrase}-${account}`
            }
      const random = flags.random || flags.linked
      if (!random && Option.isSome(flags.sameMsEvery)) {
        return yield* new UsageError({
          reason:
            "--same-ms-every shapes the random bills: add --random (a trader's bills share a millisecond only as a trade's legs and fills do)"
        })
      }
      const days = Option.getOrElse(flags.days, () => (random ? 90 : 365))
      const contract = random
        ? Option.getOrUndefined(flags.contract)
        : Option.getOrElse(flags.contract, () => traderContract(flags.funding, flags.spot))
      const now = Date.now()
      const startMillis = now - days * day
      const exchangeOf = (account: number) =>
        FakeExchange.make({
          apiVersion: flags.apiVersion,
          order: flags.order,
          bounds: flags.bounds,
          lookbackMillis: Option.getOrUndefined(Option.map(flags.lookbackDays, (days) => days * day)),
          maxWindowMillis: Option.getOrUndefined(Option.map(flags.maxWindowDays, (days) => days * day)),
          rateLimit: flags.rateLimit <= 0 ? false : { limit: flags.rateLimit, windowMillis: 1000 },
          credentials: credentialsOf(account),
          faults:
            flags.faultRate > 0 ? { random: { rate: flags.faultRate, seed: flags.seed + account - 1 } } : undefined,
          ...(random
            ? {
                generate: {
                  seed: flags.seed + account - 1,
                  funding: flags.funding,
                  spot: flags.spot,
                  contract,
                  linked: flags.linked,
                  startMillis,
                  endMillis: now,
                  sameMillisecondGroup: Option.match(flags.sameMsEvery, {
                    onNone: () => undefined,
                    onSome: (every) => ({ every, size: flags.sameMsSize })
                  })
                }
              }
            : {
                bills: TraderAccount.make({ seed: flags.seed + account - 1 }).generate({
                  funding: flags.funding,
                  spot: flags.spot,
                  contract: contract ?? traderContract(flags.funding, flags.spot),
                  startMillis,
                  endMillis: now
                })
              })
        })
      // The first account apart: the option's own rule keeps `--accounts` at 1 or more.
      const first = yield* exchangeOf(1)
      const rest = yield* Effect.forEach(
        Array.from({ length: flags.accounts - 1 }, (_, index) => index + 2),
        exchangeOf
      )
      const server = yield* FakeExchangeServer.serveAccounts([first, ...rest], {
        host: flags.host,
        port: flags.port,
        latency: { millis: flags.latency, jitterMillis: flags.jitter, seed: flags.seed }
      })
      yield* Console.log(`Fake exchange listening on ${server.url} (Ctrl-C to stop)`)
      const each =
        flags.accounts === 1
          ? ""
          : ` per account, ${flags.accounts} accounts (seeds ${flags.seed}..${flags.seed + flags.accounts - 1})`
      const counts =
        contract === undefined
          ? `${flags.funding} funding and ${flags.spot} spot`
          : `${flags.funding} funding, ${flags.spot} spot and ${contract} futures`
      yield* Console.log(
        `${counts} bills ${random ? "" : "of a trader "}over ${days} days${each === "" ? ` (seed ${flags.seed})` : each}, interface ${flags.apiVersion}, order ${flags.order}, bounds ${flags.bounds}`
      )
      const limits = [
        ...Option.toArray(Option.map(flags.lookbackDays, (days) => `serves only the last ${days} days`)),
        ...Option.toArray(Option.map(flags.maxWindowDays, (days) => `refuses windows wider than ${days} days`))
      ]
      if (limits.length > 0) yield* Console.log(`History: ${limits.join(", ")}`)
      const envOf = (account: number) => {
        const credentials = credentialsOf(account)
        return `WEEX_API_KEY=${credentials.apiKey} WEEX_API_SECRET=${credentials.secret} WEEX_API_PASSPHRASE=${credentials.passphrase}`
      }
      if (flags.accounts > 1) {
        yield* Console.log("Accounts, one a line:")
        for (let account = 1; account <= flags.accounts; account++) yield* Console.log(`  ${envOf(account)}`)
      }
      yield* Console.log("In another shell:")
      const version = flags.apiVersion === "v2" ? "" : ` WEEX_API_VERSION=${flags.apiVersion}`
      yield* Console.log(`  export WEEX_BASE_URL=${server.url}${version} ${envOf(1)}`)
      yield* Console.log(`  ${runner} export --account spot`)
      if (flags.accounts > 1) {
        yield* Console.log(`  ${envOf(2)} ${runner} fleet add --db URL --label fake-2   # and so on, one line each`)
      }
      return yield* Effect.never
    }).pipe(Effect.scoped)
  ).pipe(Command.withDescription("run a fake exchange on this machine, with generated bills, until Ctrl-C"))
