/**
 * `pnpm fake-exchange`: runs the fake exchange on loopback with generated bills until Ctrl-C,
 * so the client, the CLI or any other tool can be tried with no account and no network.
 *
 * @since 0.1.0
 */
import { FakeExchange } from "@account-bills/core/testing"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { FakeExchangeServer } from "../FakeExchangeServer.js"

const defaults = FakeExchange.defaultCredentials
const day = 24 * 60 * 60 * 1000

const options = {
  seed: Options.integer("seed").pipe(Options.withDefault(1), Options.withDescription("generator seed")),
  funding: Options.integer("funding").pipe(Options.withDefault(1000), Options.withDescription("funding bills")),
  spot: Options.integer("spot").pipe(Options.withDefault(1000), Options.withDescription("spot bills")),
  days: Options.integer("days").pipe(
    Options.withDefault(90),
    Options.withDescription("the bills span this many days up to now")
  ),
  sameMsEvery: Options.integer("same-ms-every").pipe(
    Options.optional,
    Options.withDescription("every N bills, start a group sharing one millisecond")
  ),
  sameMsSize: Options.integer("same-ms-size").pipe(
    Options.withDefault(2),
    Options.withDescription("size of such a group")
  ),
  order: Options.choice("order", ["newest-first", "oldest-first"]).pipe(Options.withDefault("newest-first" as const)),
  bounds: Options.choice("bounds", ["inclusive", "exclusive"]).pipe(Options.withDefault("inclusive" as const)),
  rateLimit: Options.integer("rate-limit").pipe(
    Options.withDefault(10),
    Options.withDescription("requests per second per operation; 0 disables the limit")
  ),
  faultRate: Options.float("fault-rate").pipe(
    Options.withDefault(0),
    Options.withDescription("share of requests (0..1) answered with a random fault")
  ),
  latency: Options.integer("latency").pipe(
    Options.withDefault(0),
    Options.withDescription("round trip in ms: half before the request is counted, half after")
  ),
  jitter: Options.integer("jitter").pipe(
    Options.withDefault(0),
    Options.withDescription("up to this many ms more per round trip, drawn per request")
  ),
  apiVersion: Options.choice("api-version", ["v2", "v3"]).pipe(
    Options.withFallbackConfig(Config.literal("v2", "v3")("WEEX_API_VERSION").pipe(Config.withDefault("v2" as const))),
    Options.withDescription("the interface served: v2 or v3 (default WEEX_API_VERSION, else v2)")
  ),
  port: Options.integer("port").pipe(Options.withDefault(0), Options.withDescription("0 picks a free port")),
  host: Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("loopback only")),
  apiKey: Options.text("api-key").pipe(Options.withDefault(defaults.apiKey)),
  secret: Options.text("secret").pipe(Options.withDefault(defaults.secret)),
  passphrase: Options.text("passphrase").pipe(Options.withDefault(defaults.passphrase))
}

const command = Command.make("fake-exchange", options, (flags) =>
  Effect.gen(function* () {
    const now = Date.now()
    const server = yield* FakeExchangeServer.make({
      host: flags.host,
      port: flags.port,
      apiVersion: flags.apiVersion,
      latency: { millis: flags.latency, jitterMillis: flags.jitter, seed: flags.seed },
      order: flags.order,
      bounds: flags.bounds,
      rateLimit: flags.rateLimit <= 0 ? false : { limit: flags.rateLimit, windowMillis: 1000 },
      credentials: { apiKey: flags.apiKey, secret: flags.secret, passphrase: flags.passphrase },
      faults: flags.faultRate > 0 ? { random: { rate: flags.faultRate, seed: flags.seed } } : undefined,
      generate: {
        seed: flags.seed,
        funding: flags.funding,
        spot: flags.spot,
        startMillis: now - flags.days * day,
        endMillis: now,
        sameMillisecondGroup: Option.match(flags.sameMsEvery, {
          onNone: () => undefined,
          onSome: (every) => ({ every, size: flags.sameMsSize })
        })
      }
    })
    yield* Console.log(`Fake exchange listening on ${server.url} (Ctrl-C to stop)`)
    yield* Console.log(
      `Try: WEEX_API_VERSION=${flags.apiVersion} WEEX_BASE_URL=${server.url} WEEX_API_KEY=${flags.apiKey} WEEX_API_SECRET=${flags.secret} WEEX_API_PASSPHRASE=${flags.passphrase} pnpm bills export --account spot`
    )
    yield* Console.log(
      `${flags.funding} funding and ${flags.spot} spot bills (seed ${flags.seed}), interface ${flags.apiVersion}, order ${flags.order}, bounds ${flags.bounds}`
    )
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    Effect.catchTag("FakeExchangeServerError", (error) =>
      Effect.zipRight(
        Console.error(error.message),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    )
  )
)

const cli = Command.run(command, { name: "fake-exchange", version: "0.1.0" })

cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain)
