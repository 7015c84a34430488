/**
 * The fake exchange of `@account-bills/core/testing` served over real HTTP on loopback, calling
 * the very same platform-free `handle` as the in-memory `HttpClient`, so both answer identically.
 * Faults map onto the socket: `Reset` destroys it, `Hang` leaves the request unanswered until the
 * client goes away or the server closes, `Truncated` sends the cut body.
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import {
  FakeExchange,
  type FakeExchangeOptions,
  type FakeExchangeService,
  fakeRequestOf,
  type FakeRequest,
  type FakeResponse,
  Latency
} from "@account-bills/core/testing"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"

/**
 * Why the server could not start: a non-loopback host, or the listen call failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class FakeExchangeServerError extends Schema.TaggedError<FakeExchangeServerError>(
  "@account-bills/node/FakeExchangeServerError"
)("FakeExchangeServerError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * Where to listen. Only loopback hosts are accepted: the fake has well-known credentials.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListenOptions {
  /** Default `127.0.0.1`; `localhost` and `::1` are accepted too. */
  readonly host?: string | undefined
  /** Default 0: a free port chosen by the OS. */
  readonly port?: number | undefined
  /** Answers wait half of this round trip before the model counts them, half after. */
  readonly latency?: Latency.LatencyOptions | undefined
}

/**
 * A running server.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeExchangeServerService {
  /** Base URL, e.g. `http://127.0.0.1:54321`; give it to the client as its base URL. */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly exchange: FakeExchangeService
  /**
   * Every account the server answers for, `exchange` first: a request goes to the account whose
   * key it is signed with (`serveAccounts`); one account unless several were given.
   *
   * @since 0.2.0
   */
  readonly exchanges: ReadonlyArray<FakeExchangeService>
}

const loopbackHosts: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1"])

/**
 * Whether a host name is one the server agrees to bind.
 *
 * @since 0.1.0
 * @category utils
 */
export const isLoopback = (host: string): boolean => loopbackHosts.has(host)

const send = (req: Http.IncomingMessage, res: Http.ServerResponse, response: FakeResponse): void => {
  switch (response._tag) {
    case "Reset":
      req.socket.destroy()
      return
    case "Hang":
      return
    case "Response":
    case "Truncated":
      res.writeHead(response.status, { ...response.headers, "content-length": Buffer.byteLength(response.body) })
      res.end(response.body)
  }
}

/** The account a request is signed for, by its `ACCESS-KEY`; any other goes to the first, which refuses it. */
const routed = (exchanges: readonly [FakeExchangeService, ...Array<FakeExchangeService>]) => {
  const byKey = new Map(exchanges.map((exchange) => [exchange.credentials.apiKey, exchange] as const))
  return (request: FakeRequest) => (byKey.get(request.headers["access-key"] ?? "") ?? exchanges[0]).handle(request)
}

/**
 * Serves an exchange on loopback for the lifetime of the scope.
 *
 * @since 0.1.0
 * @category utils
 */
export const serve = (
  exchange: FakeExchangeService,
  options: ListenOptions = {}
): Effect.Effect<FakeExchangeServerService, FakeExchangeServerError, Scope.Scope> => serveAccounts([exchange], options)

/**
 * Serves several accounts' exchanges on one loopback address, as the exchange serves every key at
 * one host: each request is answered by the account whose API key signed it, with that account's
 * bills and its own rate limit (the exchange's limit per account). A key of none of them is refused
 * as the exchange refuses an unknown key.
 *
 * @since 0.2.0
 * @category utils
 */
export const serveAccounts = (
  exchanges: readonly [FakeExchangeService, ...Array<FakeExchangeService>],
  options: ListenOptions = {}
): Effect.Effect<FakeExchangeServerService, FakeExchangeServerError, Scope.Scope> =>
  Effect.gen(function* () {
    const host = options.host ?? "127.0.0.1"
    if (!isLoopback(host)) {
      return yield* new FakeExchangeServerError({
        message: `refusing to listen on ${host}: the fake exchange serves loopback only (127.0.0.1, ::1, localhost)`
      })
    }
    // Handlers run with the caller's services, so a TestClock in scope drives the fake's clock.
    const handle = routed(exchanges)
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const delayed = Latency.around(options.latency)
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const fiber = runFork(delayed(handle(fakeRequestOf(req, Buffer.concat(chunks).toString("utf8")))))
        res.on("close", () => {
          if (!res.writableEnded) runFork(Fiber.interrupt(fiber))
        })
        fiber.addObserver((exit) => {
          if (Exit.isSuccess(exit)) send(req, res, exit.value)
          else if (!res.writableEnded) req.socket.destroy()
        })
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void, FakeExchangeServerError>((resume) => {
        server.once("error", (cause) =>
          resume(
            Effect.fail(new FakeExchangeServerError({ message: `cannot listen on ${host}: ${cause.message}`, cause }))
          )
        )
        server.listen(options.port ?? 0, host, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          // Hanging requests and keep-alive sockets would otherwise hold close() open forever.
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    return { url, host, port, exchange: exchanges[0], exchanges }
  })

/**
 * A running loopback server around a fake exchange.
 *
 * @since 0.1.0
 * @category tags
 */
export class FakeExchangeServer extends Context.Tag("@account-bills/node/FakeExchangeServer")<
  FakeExchangeServer,
  FakeExchangeServerService
>() {
  /** Builds a fake exchange from `options` and serves it for the lifetime of the scope. */
  static readonly make = (
    options: FakeExchangeOptions & ListenOptions = {}
  ): Effect.Effect<FakeExchangeServerService, FakeExchangeServerError, Scope.Scope> =>
    Effect.flatMap(FakeExchange.make(options), (exchange) => serve(exchange, options))
  /** Serves an existing exchange. */
  static readonly serve = serve
  /** Serves several accounts' exchanges at one address, each answering for its own key. */
  static readonly serveAccounts = serveAccounts
  /** The server and its exchange, as services. */
  static readonly layer = (
    options: FakeExchangeOptions & ListenOptions = {}
  ): Layer.Layer<FakeExchangeServer | FakeExchange, FakeExchangeServerError> =>
    Layer.scopedContext(
      Effect.map(FakeExchangeServer.make(options), (server) =>
        Context.make(FakeExchangeServer, server).pipe(Context.add(FakeExchange, server.exchange))
      )
    )
}
