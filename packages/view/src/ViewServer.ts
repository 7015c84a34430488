/**
 * The view's HTTP server on `@effect/platform`'s router: the page, the JSON interface under
 * `/api/` and the downloads. Every route is a GET and none writes; a request whose `Host` is not
 * the listen address or `localhost` is refused (DNS rebinding), as is any other method; every
 * answer carries `Content-Security-Policy: default-src 'self'`. Bad input is a 400 whose JSON
 * `error` names it.
 *
 * @since 0.1.0
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { allowedHosts, hostAllowed } from "./internal/hostGuard.js"
import type { Asset } from "./internal/pageAssets.js"
import { ViewData } from "./ViewData.js"
import { ViewExporter } from "./ViewExporter.js"
import {
  AccountParams,
  BalancesParams,
  BillsParams,
  DownloadParams,
  decodeParams,
  EventsParams,
  RawParams,
  ViewBadRequest
} from "./ViewRequest.js"

/**
 * The headers of every answer: no script, style or connection but the server's own, no framing,
 * no referrer, no sniffing, no caching of the ledger.
 *
 * @since 0.1.0
 * @category constants
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
}

const refusal = (status: number, error: string) => HttpServerResponse.unsafeJson({ error }, { status })

const params = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  HttpServerRequest.searchParamsFromURL(new URL(request.url, "http://view"))
)

const json = (body: unknown) => HttpServerResponse.unsafeJson(body)

/** The file extension and type of each export format. */
const formatFile: Readonly<Record<string, readonly [string, string]>> = {
  ndjson: ["ndjson", "application/x-ndjson"],
  csv: ["csv", "text/csv; charset=utf-8"],
  koinly: ["koinly.csv", "text/csv; charset=utf-8"],
  cointracking: ["cointracking.csv", "text/csv; charset=utf-8"],
  bittytax: ["bittytax.csv", "text/csv; charset=utf-8"],
  hledger: ["hledger.journal", "text/plain; charset=utf-8"],
  ledger: ["ledger.journal", "text/plain; charset=utf-8"],
  beancount: ["beancount", "text/plain; charset=utf-8"]
}

/** The routes, over the store's reads, the export, and the page's files. */
const router = (options: { readonly db: string; readonly assets: ReadonlyMap<string, Asset> }) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/accounts",
      Effect.gen(function* () {
        const data = yield* ViewData
        const decoded = yield* decodeParams(AccountParams, yield* params)
        return json(yield* data.overview(yield* data.account(decoded.account)))
      })
    ),
    HttpRouter.get(
      "/api/balances",
      Effect.gen(function* () {
        const data = yield* ViewData
        const decoded = yield* decodeParams(BalancesParams, yield* params)
        const account = yield* data.account(decoded.account)
        return json(
          yield* data.balances(account, decoded.coin, {
            from: decoded.from?.millis,
            to: decoded.to?.millis,
            points: decoded.points ?? 2_000
          })
        )
      })
    ),
    HttpRouter.get(
      "/api/bills",
      Effect.gen(function* () {
        const data = yield* ViewData
        const decoded = yield* decodeParams(BillsParams, yield* params)
        const account = yield* data.account(decoded.account)
        const after =
          decoded.after === undefined
            ? undefined
            : { time: decoded.after[0], kind: decoded.after[2], billId: decoded.after[4] }
        return json(
          yield* data.bills(
            account,
            {
              kind: decoded.kind,
              coin: decoded.coin,
              bizType: decoded.bizType,
              from: decoded.from?.millis,
              to: decoded.to?.millis
            },
            after,
            decoded.limit ?? 50
          )
        )
      })
    ),
    HttpRouter.get(
      "/api/bill",
      Effect.gen(function* () {
        const data = yield* ViewData
        const decoded = yield* decodeParams(RawParams, yield* params)
        const account = yield* data.account(decoded.account)
        const raw = yield* data.raw(account, decoded.kind, decoded.id)
        return Option.match(raw, {
          onNone: () => refusal(404, `bill: the store holds no ${decoded.kind} bill ${decoded.id}`),
          // The record as the exchange sent it: the stored text itself, not a re-encoding.
          onSome: (text) => HttpServerResponse.text(text, { contentType: "application/json" })
        })
      })
    ),
    HttpRouter.get(
      "/api/events",
      Effect.gen(function* () {
        const data = yield* ViewData
        const decoded = yield* decodeParams(EventsParams, yield* params)
        const account = yield* data.account(decoded.account)
        return json(yield* data.events(account, { from: decoded.from?.millis, to: decoded.to?.millis }))
      })
    ),
    HttpRouter.get(
      "/api/audit",
      Effect.gen(function* () {
        const data = yield* ViewData
        const decoded = yield* decodeParams(AccountParams, yield* params)
        return json(yield* data.audit(yield* data.account(decoded.account)))
      })
    ),
    HttpRouter.get("/download", download(options.db)),
    HttpRouter.get("/api/*", Effect.succeed(refusal(404, "no such route; see docs/view.md"))),
    HttpRouter.get("/", page(options.assets)),
    HttpRouter.get("/assets/*", page(options.assets))
  )

/** A file of the page, by the request's path. */
const page = (assets: ReadonlyMap<string, Asset>) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const asset = assets.get(new URL(request.url, "http://view").pathname)
    return asset === undefined
      ? refusal(404, "no such page")
      : HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType })
  })

/**
 * `/download`: `bills export --db` with the page's filters, run by the export's own code into a
 * file of its own, which is sent and removed.
 */
const download = (db: string) =>
  Effect.gen(function* () {
    const data = yield* ViewData
    const exporter = yield* ViewExporter
    const decoded = yield* decodeParams(DownloadParams, yield* params)
    const account = yield* data.account(decoded.account)
    const held = yield* data.accounts
    const label = yield* data.labelOf(account)
    if (label === undefined && held.length > 1) {
      return yield* new ViewBadRequest({
        reason: `account: ${account} has no label, and bills export --db chooses an account of a store of several by --label`
      })
    }
    let coinId: number | undefined
    if (decoded.coin !== undefined) {
      coinId = (yield* data.coin(account, decoded.coin)).coinId
      if (coinId === undefined) {
        return yield* new ViewBadRequest({
          reason: `coin: ${decoded.coin} has no coin id (the futures account names assets), and bills export filters by --coin-id`
        })
      }
    }
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "bills-view-"))),
      (made) => Effect.sync(() => fs.rmSync(made, { recursive: true, force: true }))
    )
    const [extension, contentType] = formatFile[decoded.format] ?? ["txt", "text/plain"]
    const out = path.join(directory, `export.${extension}`)
    yield* exporter.exportTo(
      {
        db,
        label,
        format: decoded.format,
        account: decoded.kind ?? "all",
        from: decoded.from?.text,
        to: decoded.to?.text,
        coinId,
        bizType: decoded.bizType
      },
      out
    )
    // Opened before the folder is removed: the open file is read to its end regardless.
    const stream = fs.createReadStream(out)
    yield* Effect.async<void>((resume) => {
      stream.once("open", () => resume(Effect.void))
      stream.once("error", () => resume(Effect.void))
    })
    const name = `bills-${(label ?? "account").replace(/[^A-Za-z0-9_-]/g, "_")}-${decoded.kind ?? "all"}.${extension}`
    return HttpServerResponse.stream(
      NodeStream.fromReadable(
        () => stream,
        (error) => error
      ),
      {
        contentType,
        headers: { "content-disposition": `attachment; filename="${name}"` }
      }
    )
  }).pipe(Effect.scoped)

/**
 * The app of a server listening on `host:port`: the guards, then the routes; failures as JSON.
 *
 * @since 0.1.0
 * @category constructors
 */
export const app = (options: {
  readonly host: string
  readonly port: number
  readonly db: string
  readonly assets: ReadonlyMap<string, Asset>
}) =>
  Effect.gen(function* () {
    const routes = yield* HttpRouter.toHttpApp(router(options))
    const allowed = allowedHosts(options.host, options.port)
    const answer = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!hostAllowed(allowed, request.headers.host)) {
        return refusal(
          403,
          `refused: the Host header ${JSON.stringify(request.headers.host ?? "")} is not ${[...allowed].join(" or ")}`
        )
      }
      if (request.method !== "GET") {
        return HttpServerResponse.setHeader(
          refusal(405, `${request.method}: the view answers GET only`),
          "allow",
          "GET"
        )
      }
      return yield* routes
    }).pipe(
      Effect.catchTags({
        ViewBadRequest: (error) => Effect.succeed(refusal(400, error.reason)),
        DownloadRefused: (error) => Effect.succeed(refusal(error.usage ? 400 : 409, error.reason)),
        RouteNotFound: () => Effect.succeed(refusal(404, "no such page")),
        StoreUnavailable: (error) => Effect.succeed(refusal(503, error.message)),
        StoreDiskFull: (error) => Effect.succeed(refusal(503, error.message)),
        StoreNotSynced: (error) => Effect.succeed(refusal(503, error.message))
      }),
      Effect.map(HttpServerResponse.setHeaders(securityHeaders))
    )
    return answer satisfies HttpApp.Default<unknown, unknown>
  })
