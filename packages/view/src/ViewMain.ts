/**
 * `bills view`: opens the store, then serves the page on `host:port` until interrupted. The first
 * line on standard output is `view at http://HOST:PORT/`; a host other than the loopback gets one
 * warning line on stderr, since the page has no login.
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import { type StoreError, StoreLayer } from "@account-bills/store"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { type PageNotBuilt, readAssets } from "./internal/pageAssets.js"
import { ViewData } from "./ViewData.js"
import { type ExportToFile, ViewExporter } from "./ViewExporter.js"
import { app } from "./ViewServer.js"

/**
 * What `bills view` takes.
 *
 * @since 0.1.0
 * @category models
 */
export interface ViewOptions {
  /** The store, `PATH|URL` as `--db` takes it. */
  readonly db: string
  /** The account shown first (`--label`). */
  readonly label?: string | undefined
  /** Default 127.0.0.1. */
  readonly host?: string | undefined
  /** Default 0: a free port. */
  readonly port?: number | undefined
  /** Open the page in the system's browser. */
  readonly open?: boolean | undefined
  /** The downloads' export (`bills export --db`). */
  readonly exportToFile: ExportToFile
  /** Where the two lines go; default the process's stdout and stderr. */
  readonly say?: ((line: string) => void) | undefined
  readonly warn?: ((line: string) => void) | undefined
}

const loopback = new Set(["127.0.0.1", "localhost", "::1"])

/**
 * The URL a browser reaches `host:port` at.
 *
 * @since 0.1.0
 * @category utils
 */
export const viewUrl = (host: string, port: number): string =>
  `http://${host.includes(":") ? `[${host}]` : host}:${port}/`

/** The system's way of opening a URL in the browser a person uses. */
const openBrowser = (url: string) =>
  Effect.sync(() => {
    const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open"
    const child = spawn(command, [url], { detached: true, stdio: "ignore" })
    child.on("error", () => {})
    child.unref()
  })

/**
 * Serves the view until the scope closes: the store is opened first (a store that does not exist
 * or is not one fails here, before anything listens), then the server listens and the first line
 * is said. Closing the scope ends every connection at once, keep-alive ones included.
 *
 * @since 0.1.0
 * @category constructors
 */
export const serve = (
  options: ViewOptions
): Effect.Effect<{ readonly url: string }, StoreError | PageNotBuilt | HttpServerError.ServeError, Scope.Scope> =>
  Effect.gen(function* () {
    const host = options.host ?? "127.0.0.1"
    const assets = yield* readAssets()
    const context = yield* Layer.build(
      ViewData.layer({ label: options.label }).pipe(
        Layer.provideMerge(StoreLayer.readerFrom(options.db)),
        Layer.merge(ViewExporter.layer(options.exportToFile))
      )
    )
    // The overview of the account shown first is read once before the server says where it is:
    // a cold store's first GROUP BY over a million bills takes most of a second more than a warm
    // one, and the page a person opens first would wait for it. A store with no account yet says
    // so on the page instead.
    yield* ViewData.pipe(
      Effect.flatMap((data) => Effect.flatMap(data.account(undefined), data.overview)),
      Effect.ignore,
      Effect.provide(context)
    )
    const server = http.createServer()
    const listening = yield* NodeHttpServer.make(() => server, { host, port: options.port ?? 0 })
    yield* Effect.addFinalizer(() => Effect.sync(() => server.closeAllConnections()))
    const port = (server.address() as AddressInfo).port
    const handler = yield* app({ host, port, db: options.db, assets })
    yield* HttpServer.serveEffect(handler).pipe(
      Effect.provideService(HttpServer.HttpServer, listening),
      Effect.provide(context)
    )
    const url = viewUrl(host, port)
    const say = options.say ?? ((line: string) => void process.stdout.write(`${line}\n`))
    const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`))
    yield* Effect.sync(() => {
      say(`view at ${url}`)
      if (!loopback.has(host)) {
        warn(
          `bills view: warning: listening on ${host}, not 127.0.0.1: the page has no login, and anyone who can reach ${host}:${port} can read this ledger`
        )
      }
    })
    if (options.open === true) yield* openBrowser(url)
    return { url }
  })

/**
 * How `run` ended: stopped by its signal, or failed before or while serving, with one line.
 *
 * @since 0.1.0
 * @category models
 */
export type RunOutcome = { readonly _tag: "Stopped" } | { readonly _tag: "Failed"; readonly message: string }

/**
 * `serve` until `signal` aborts, as a promise (the `bills` program runs its own copy of effect).
 *
 * @since 0.1.0
 * @category utils
 */
export const run = (options: ViewOptions, signal: AbortSignal): Promise<RunOutcome> =>
  Effect.runPromiseExit(Effect.scoped(Effect.zipRight(serve(options), Effect.never)), { signal }).then((exit) =>
    Exit.match(exit, {
      onSuccess: (): RunOutcome => ({ _tag: "Stopped" }),
      onFailure: (cause): RunOutcome =>
        Cause.isInterruptedOnly(cause)
          ? { _tag: "Stopped" }
          : {
              _tag: "Failed",
              message: Cause.failureOption(cause).pipe((found) =>
                found._tag === "Some" ? found.value.message : (Cause.pretty(cause).split("\n")[0] ?? "failed")
              )
            }
    })
  )
