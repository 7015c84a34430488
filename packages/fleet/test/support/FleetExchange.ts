/**
 * The loopback fake exchange of a fleet: many accounts at once, each its own `FakeExchange`
 * (its own key, bills and per-key limit), and a limit per source address and operation on top,
 * as the exchange counts IP limits apart from UID limits. Every request is logged with the key
 * and the address it came from.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type { OperationName } from "@account-bills/core"
import {
  FakeExchange,
  type FakeExchangeOptions,
  type FakeExchangeService,
  fakeRequestOf,
  Latency,
  type FakeResponse,
  rejectionResponse,
  rejections,
  SlidingWindow
} from "@account-bills/core/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"

/** One request as the fleet exchange saw it. */
export interface FleetRequest {
  readonly key: string
  readonly address: string
  readonly operation: OperationName | undefined
  /** Arrival, epoch ms. */
  readonly at: number
  /**
   * When the client signed it (its ACCESS-TIMESTAMP), epoch ms by the sender's clock: taken
   * under the sender's permits, free of this process's event-loop delays.
   */
  readonly signedAt: number | undefined
  readonly status: number
  /** Refused by the per-address limit (before the account's own). */
  readonly addressLimited: boolean
}

export interface FleetExchangeOptions {
  /** Per account: its options (credentials, bills, per-key `rateLimit`). */
  readonly accounts: ReadonlyArray<FakeExchangeOptions>
  /** Per source address and operation; `false`: none. */
  readonly perAddress: SlidingWindow.RateLimit
  readonly port?: number | undefined
  /** The round trip between the runners and the exchange; default none (loopback). */
  readonly latency?: Latency.LatencyOptions | undefined
}

export interface FleetExchangeService {
  readonly url: string
  /** The accounts' exchanges, by API key. */
  readonly exchanges: ReadonlyMap<string, FakeExchangeService>
  readonly requests: () => ReadonlyArray<FleetRequest>
}

// The contract paths first: v2's `/capi/v2/account/bills` ends as spot's `/api/v2/account/bills` does,
// and the exchange limits the futures interface apart from spot.
const operationOf = (path: string): OperationName | undefined =>
  /\/capi\/v\d+\/account\/(income|bills)$/.test(path)
    ? "contractBills"
    : path.endsWith("/fundingBills")
      ? "fundingBills"
      : path.endsWith("/bills")
        ? "spotBills"
        : undefined

const statusOf = (response: FakeResponse) =>
  response._tag === "Response" || response._tag === "Truncated" ? response.status : 0

/** Serves the fleet's exchange on 127.0.0.1 for the lifetime of the scope. */
export const serve = (options: FleetExchangeOptions): Effect.Effect<FleetExchangeService, never, Scope.Scope> =>
  Effect.gen(function* () {
    const exchanges = new Map<string, FakeExchangeService>()
    for (const account of options.accounts) {
      const exchange = yield* FakeExchange.make(account)
      exchanges.set(exchange.credentials.apiKey, exchange)
    }
    const windows = new Map<string, SlidingWindow.SlidingWindow>()
    const log: Array<FleetRequest> = []
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const delayed = Latency.around(options.latency)
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const request = fakeRequestOf(req, Buffer.concat(chunks).toString("utf8"))
        const key = request.headers["access-key"] ?? ""
        const address = req.socket.remoteAddress ?? "unknown"
        const operation = operationOf(request.path)
        const stamp = Number(request.headers["access-timestamp"] ?? Number.NaN)
        const signedAt = Number.isFinite(stamp) ? stamp : undefined
        // Counted and answered half a round trip after it left, as the exchange would.
        const answer = Effect.suspend((): Effect.Effect<readonly [FakeResponse, boolean]> => {
          const at = Date.now()
          const logged = (response: FakeResponse, addressLimited: boolean) => {
            log.push({ key, address, operation, at, signedAt, status: statusOf(response), addressLimited })
            return [response, addressLimited] as const
          }
          if (operation !== undefined) {
            const name = `${address} ${operation}`
            const window = windows.get(name) ?? SlidingWindow.make()
            windows.set(name, window)
            if (!window.tryAdmit(at, options.perAddress)) {
              return Effect.succeed(logged(rejectionResponse(rejections.rateLimited, at, `address ${address}`), true))
            }
          }
          const exchange = exchanges.get(key) ?? exchanges.values().next().value
          if (exchange === undefined) return Effect.succeed(logged(rejectionResponse(rejections.invalidKey, at), false))
          return Effect.map(exchange.handle(request), (response) => logged(response, false))
        })
        runFork(delayed(answer)).addObserver((exit) => {
          if (Exit.isSuccess(exit) && (exit.value[0]._tag === "Response" || exit.value[0]._tag === "Truncated")) {
            const response = exit.value[0]
            res.writeHead(response.status, { ...response.headers, "content-length": Buffer.byteLength(response.body) })
            res.end(response.body)
          } else req.socket.destroy()
        })
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(options.port ?? 0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    return { url: `http://127.0.0.1:${port}`, exchanges, requests: () => log }
  })
